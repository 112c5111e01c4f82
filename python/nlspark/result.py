"""What a command wrote, read back: maps as numpy arrays, NIfTI maps as nibabel images."""

import gzip
import json
import os
import weakref


class Result:
    """The outputs of one command.

    maps: {name: numpy array} of every per-voxel output (observed, p, p_fwer, tstat1, ...);
    null_max: {name: array (P,)} of the null distributions of maxima (null_max, null_max_tfce,
    ...); images: {name: nibabel image} of the maps written as NIfTI (inputs with a grid), mask
    included; summary: summary.json as a dict; report_html: report.html as text (or None);
    path: the output directory; stdout/stderr: the command's result line and warnings.
    result["p"] is result.maps["p"].
    """

    def __init__(self, command, path, stdout="", stderr="", cleanup=None, spark=None):
        import numpy as np
        import nibabel as nib
        self.command = command
        self._spark = spark  # Result.write copies through this session's JVM
        self.path = path
        self.stdout = stdout
        self.stderr = stderr
        self.maps = {}
        self.null_max = {}
        self.images = {}
        for f in sorted(os.listdir(path)):
            full = os.path.join(path, f)
            if f.endswith(".npy"):
                name = f[:-4]
                target = self.null_max if name.startswith("null_max") else self.maps
                target[name] = np.load(full, allow_pickle=False)
            elif f.endswith(".nii.gz") or f.endswith(".nii"):
                name = f[:-7] if f.endswith(".nii.gz") else f[:-4]
                opener = gzip.open if f.endswith(".gz") else open
                with opener(full, "rb") as fh:
                    data = fh.read()
                # read whole, so that the image outlives the directory
                self.images[name] = _nifti_class(data).from_bytes(data)
        with open(os.path.join(path, "summary.json"), encoding="utf-8") as fh:
            self.summary = json.load(fh)
        report = os.path.join(path, "report.html")
        self.report_html = None
        if os.path.exists(report):
            with open(report, encoding="utf-8") as fh:
                self.report_html = fh.read()
        self._finalizer = weakref.finalize(self, cleanup) if cleanup else None

    def __getitem__(self, name):
        return self.maps[name]

    def write(self, directory, overwrite=False):
        """Copies every output file (.npy, .nii.gz, summary.json, report.html) into directory
        (a local path or a Hadoop URI) under the command line's --output rules: the directory
        must not exist or be empty; with overwrite=True it may hold an earlier nlspark result,
        whose files (those its summary.json lists, and its report.html) are replaced or
        removed, and nothing else. Files are renamed into place, never written through links.
        Refusals raise ValueError. Returns directory."""
        from . import _session
        from ._errors import ResourceError
        if not isinstance(overwrite, bool):
            raise ValueError("Result.write(overwrite=) must be True or False, but was %r"
                             % (overwrite,))
        given = os.fspath(directory)
        # a URI (hdfs://, s3a://, dbfs:/) as it is; a local path absolute, as the JVM's
        # working directory may differ from Python's
        target = given if ":" in given.split("/")[0] else os.path.abspath(given)
        spark = self._spark
        if spark is not None and _session.stopped(spark):
            spark = None  # stopped since: the active session, else a new one
        spark = _session.resolve(spark)
        try:
            _session.runner(spark).copy_result(self.path, target, overwrite)
        except (ValueError, ResourceError) as e:
            raise type(e)(_python_terms(str(e), target, given)) from None
        return directory

    def __repr__(self):
        return "<nlspark %s result: maps %s, null_max %s, images %s; %s>" % (
            self.command, sorted(self.maps), sorted(self.null_max), sorted(self.images),
            self.path)


def _python_terms(message, target, given):
    """The command line's refusal in Result.write's terms."""
    message = message.replace("Cannot write --output " + target,
                              "Result.write cannot write into " + given)
    message = message.replace("--output " + target, given)
    return message.replace("--overwrite", "overwrite=True").replace("--output", "output")


def _nifti_class(data):
    """NIfTI-1 or NIfTI-2, by sizeof_hdr (348 or 540, either byte order)."""
    import nibabel as nib
    head = bytes(data[:4])
    if 540 in (int.from_bytes(head, "little"), int.from_bytes(head, "big")):
        return nib.Nifti2Image
    return nib.Nifti1Image
