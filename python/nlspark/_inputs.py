"""Inputs in memory written as the files the command line reads, into a staging directory:
numpy arrays as .npy, nibabel images as .nii.gz (several as a list file), nilearn
SurfaceImages as one GIFTI of every sample with their mesh as a .surf.gii (the hemispheres side
by side), pandas designs and contrasts as CSV with a header row, a Spark DataFrame as Parquet. Paths and URIs pass as they
are. Large arrays so cross to the JVM as files, never element by element."""

import os

import numpy as np


class Staging:
    """A directory of staged inputs; names are numbered so that none collides."""

    def __init__(self, directory, spark):
        self.dir = directory
        self.spark = spark
        self._n = 0
        # staged file -> the argument it came from ("design=", "input=[3]"), for messages
        self.labels = {}
        # the mesh of SurfaceImage inputs, staged once: (parts and sizes, path)
        self.surface = None

    def _path(self, name, suffix):
        self._n += 1
        path = os.path.join(self.dir, "%02d-%s%s" % (self._n, name, suffix))
        self.labels[path] = argument(name)
        return path

    def samples(self, x, name):
        """A samples input (--input, --input2, --x-test): path, array, image(s) or DataFrame."""
        if x is None:
            return None
        if isinstance(x, (str, os.PathLike)):
            return os.fspath(x)
        if _is_spark_dataframe(x):
            path = self._path(name, ".parquet")
            x.write.parquet(_local_uri(path))
            return path
        if _is_image(x):
            return self.image(x, name)
        if _is_surface_image(x) or (isinstance(x, (list, tuple)) and x
                                    and all(_is_surface_image(i) for i in x)):
            return self.surface_samples(x, name)
        if isinstance(x, (list, tuple)):
            if not x:
                raise ValueError("Cannot stage %s: the list is empty" % name)
            if all(isinstance(i, (str, os.PathLike)) or _is_image(i) for i in x):
                for i, item in enumerate(x):
                    if not _is_image(item) and not _is_uri(os.fspath(item)) \
                            and not os.path.isfile(os.fspath(item)):
                        raise ValueError("%s names %s, which %s" % (
                            argument("%s-%04d" % (name, i)), os.fspath(item),
                            "is a directory, not an image file"
                            if os.path.isdir(os.fspath(item)) else "does not exist"))
                lines = []
                for i, item in enumerate(x):
                    lines.append(os.path.abspath(os.fspath(item)) if not _is_image(item)
                                 else self.image(item, "%s-%04d" % (name, i)))
                path = self._path(name, ".txt")
                with open(path, "w", encoding="utf-8") as f:
                    f.write("\n".join(lines) + "\n")
                return path
        return self.array(x, name)

    def series(self, x, name):
        """isc's and timeseries-correlation's input: as samples, but SurfaceImages are one per
        subject (each its time points), so several are staged as one GIFTI each in a list
        file, in subject order."""
        if isinstance(x, (list, tuple)) and len(x) > 1 and all(_is_surface_image(i) for i in x):
            mesh = x[0].mesh
            for i, img in enumerate(x):
                if list(img.mesh.parts) != list(mesh.parts) or any(
                        img.mesh.parts[p].n_vertices != mesh.parts[p].n_vertices
                        for p in mesh.parts):
                    raise ValueError("%s holds images on different meshes (%s has %s); give"
                                     " images of one mesh" % (argument(name), argument(
                                         "%s-%04d" % (name, i)), _parts(img.mesh)))
            self.mesh(mesh, name)  # staged once, named as the input's
            lines = [self.surface_samples([img], "%s-%04d" % (name, i))
                     for i, img in enumerate(x)]
            path = self._path(name, ".txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            return path
        return self.samples(x, name)

    def array(self, x, name):
        """A numeric array as .npy (float32 and float64 kept, anything else as float64)."""
        a = np.asarray(x)
        if a.dtype not in (np.float32, np.float64):
            if not np.issubdtype(a.dtype, np.number) and a.dtype != np.bool_:
                raise ValueError("Cannot stage %s: expected numbers, but the array holds %s"
                                 % (name, a.dtype))
            a = a.astype(np.float64)
        path = self._path(name, ".npy")
        np.save(path, np.ascontiguousarray(a))
        return path

    def surface_samples(self, x, name):
        """nilearn SurfaceImage(s) as one GIFTI holding every sample (a data array each), over
        the hemispheres of their mesh side by side, and the mesh staged beside it."""
        import nibabel as nib
        imgs = list(x) if isinstance(x, (list, tuple)) else [x]
        mesh = imgs[0].mesh
        self.mesh(mesh, name)
        samples = []
        for i, img in enumerate(imgs):
            if list(img.mesh.parts) != list(mesh.parts) or any(
                    img.mesh.parts[p].n_vertices != mesh.parts[p].n_vertices
                    for p in mesh.parts):
                raise ValueError("%s holds images on different meshes (%s has %s); give images"
                                 " of one mesh" % (argument(name), argument("%s-%04d" % (name, i)),
                                                   _parts(img.mesh)))
            parts = [np.asarray(img.data.parts[p]) for p in mesh.parts]
            parts = [p[:, None] if p.ndim == 1 else p for p in parts]
            samples += list(np.concatenate(parts, axis=0).T)
        path = self._path(name, ".func.gii")
        arrays = [nib.gifti.GiftiDataArray(np.asarray(s, dtype=np.float32 if s.dtype
                                                      == np.float32 else np.float64),
                                           datatype="NIFTI_TYPE_FLOAT32" if s.dtype
                                           == np.float32 else "NIFTI_TYPE_FLOAT64")
                  for s in samples]
        # float64 kept as it is ("force": nibabel's strict GIFTI types stop at float32, and a
        # cast would change the numbers the user gave; nlspark reads NIFTI_TYPE_FLOAT64)
        nib.gifti.GiftiImage(darrays=arrays).to_filename(path, mode="force")
        return path

    def mesh(self, m, name="surface", remember=True):
        """A mesh for --surface: a path passes; a nilearn PolyMesh (or one hemisphere's mesh,
        or a SurfaceImage's) is written as one .surf.gii, its parts side by side. A mesh
        written for one CIFTI hemisphere is not remembered as the study's (remember=False)."""
        if m is None:
            return self.surface[1] if self.surface is not None else None
        if isinstance(m, (str, os.PathLike)):
            return os.fspath(m)
        if _is_surface_image(m):
            m = m.mesh
        parts = getattr(m, "parts", None) or {"mesh": m}
        key = tuple((p, parts[p].n_vertices) for p in parts)
        if remember and self.surface is not None and self.surface[0] == key:
            return self.surface[1]
        import nibabel as nib
        coords, faces, offset = [], [], 0
        for p in parts:
            coords.append(np.asarray(parts[p].coordinates, dtype=np.float32))
            faces.append(np.asarray(parts[p].faces, dtype=np.int32) + offset)
            offset += coords[-1].shape[0]
        path = self._path("surface" if name in ("input", "input2") else name, ".surf.gii")
        nib.save(nib.gifti.GiftiImage(darrays=[
            nib.gifti.GiftiDataArray(np.concatenate(coords), intent="NIFTI_INTENT_POINTSET",
                                     datatype="NIFTI_TYPE_FLOAT32"),
            nib.gifti.GiftiDataArray(np.concatenate(faces), intent="NIFTI_INTENT_TRIANGLE",
                                     datatype="NIFTI_TYPE_INT32")]), path)
        if remember:
            self.surface = (key, path)
        return path

    def image(self, img, name):
        import nibabel as nib
        path = self._path(name, ".nii.gz")
        nib.save(img, path)
        return path

    def mask(self, m):
        if m is None:
            return None
        if isinstance(m, (str, os.PathLike)):
            return os.fspath(m)
        if _is_image(m):
            return self.image(m, "mask")
        if _is_surface_image(m):
            import nibabel as nib
            data = np.concatenate([np.asarray(m.data.parts[p]).reshape(-1)
                                   for p in m.mesh.parts]).astype(np.float32)
            path = self._path("mask", ".func.gii")
            nib.save(nib.gifti.GiftiImage(darrays=[nib.gifti.GiftiDataArray(
                data, datatype="NIFTI_TYPE_FLOAT32")]), path)
            return path
        raise ValueError("Cannot stage the mask: expected a nibabel image, a nilearn"
                         " SurfaceImage or a file name, but was: %s" % type(m).__name__)

    def vertex_area(self, a):
        """Each vertex's area for --vertex-area: a path passes; a SurfaceImage (one value per
        vertex of its mesh's parts, side by side) or a 1-D array is staged as a .func.gii."""
        if a is None or isinstance(a, (str, os.PathLike)):
            return None if a is None else os.fspath(a)
        if _is_surface_image(a):
            a = np.concatenate([np.asarray(a.data.parts[p]).reshape(-1) for p in a.mesh.parts])
        a = np.asarray(a)
        if a.ndim != 1 or not (np.issubdtype(a.dtype, np.number) and a.dtype != np.bool_):
            raise ValueError("vertex_area= must be one number per vertex (a 1-D array, a"
                             " SurfaceImage or a file), but was: %s of shape %s"
                             % (a.dtype, a.shape))
        import nibabel as nib
        path = self._path("vertex-area", ".func.gii")
        # float64 kept as given ("force", as for the samples)
        nib.gifti.GiftiImage(darrays=[nib.gifti.GiftiDataArray(
            a.astype(np.float64), datatype="NIFTI_TYPE_FLOAT64")]).to_filename(path, mode="force")
        return path

    def table(self, t, name, columns=None):
        """A design, contrasts or blocks table as CSV with a header row (path passes).
        A contrasts table may carry names in its index; columns names an array's columns."""
        if t is None:
            return None
        if isinstance(t, (str, os.PathLike)):
            return os.fspath(t)
        import pandas as pd
        arg = name.replace("-", "_")
        positional = False
        if not isinstance(t, pd.DataFrame):
            try:
                a = np.asarray(t, dtype=np.float64)
            except (TypeError, ValueError) as e:
                raise ValueError("%s= must hold numbers (or be a pandas DataFrame): %s"
                                 % (arg, e)) from None
            if a.ndim == 1:
                a = a[None, :] if name == "contrasts" else a[:, None]
            if a.ndim != 2:
                raise ValueError("%s= must be a table (2-D), but its shape is %s"
                                 % (arg, a.shape))
            if columns is None or len(columns) != a.shape[1]:
                columns = ["c%d" % (j + 1) for j in range(a.shape[1])]
                positional = True
            t = pd.DataFrame(a, columns=list(columns))
        _check_table(t, arg, positional)
        path = self._path(name, ".csv")
        named = name == "contrasts" and not isinstance(t.index, pd.RangeIndex)
        out = t.copy()
        for j in range(out.shape[1]):
            if pd.api.types.is_bool_dtype(out.iloc[:, j]):
                out.isetitem(j, out.iloc[:, j].astype(np.int64))  # as 0/1, not "True"
        if named:
            out.insert(0, "name", [str(i) for i in t.index])
        out.to_csv(path, index=False)
        return path


def _check_table(t, arg, positional):
    """Every cell a finite number and every name one CSV field, said in Python's terms (the
    CSV would say "not a number: ''" of a NaN, or miscount the fields of a name with a comma)."""
    import pandas as pd
    names = [("column", c) for c in t.columns]
    if not isinstance(t.index, pd.RangeIndex):
        names += [("row name", i) for i in t.index]
    for what, n in names:
        if any(ch in str(n) for ch in ',"\n\r'):
            raise ValueError("%s= has the %s %r, which holds a comma, quote or line break that"
                             " the CSV nlspark reads cannot carry; rename it" % (arg, what, n))
    for j, col in enumerate(t.columns):
        where = "column %d" % j if positional else "column %r" % (col,)
        values = t.iloc[:, j]
        try:
            parsed = pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64)
        except (TypeError, ValueError):  # a categorical column, say
            parsed = np.full(len(values), np.nan)
        bad = np.flatnonzero(~np.isfinite(parsed))
        if bad.size:
            i = int(bad[0])
            v = values.iloc[i]
            row = "row %d" % i
            if not isinstance(t.index, pd.RangeIndex):
                row += " (%r)" % (t.index[i],)
            if pd.isna(v):
                raise ValueError("%s= has NaN in %s at %s; drop or fill that row"
                                 % (arg, where, row))
            if isinstance(v, (int, float, np.number)) and not isinstance(v, bool):
                raise ValueError("%s= has %r in %s at %s; give finite numbers"
                                 % (arg, v, where, row))
            raise ValueError("%s= has %r in %s at %s, which is not a number; code it as"
                             " numbers" % (arg, v, where, row))


def argument(name):
    """The keyword argument a staged name stands for: "design" -> "design=", "x-test" ->
    "x_test=", "input-0003" (an item of a list) -> "input=[3]"."""
    import re
    item = re.fullmatch(r"(.+)-(\d{4})", name)
    if item:
        return "%s=[%d]" % (item.group(1).replace("-", "_"), int(item.group(2)))
    return name.replace("-", "_") + "="


def _is_uri(path):
    """A Hadoop URI (hdfs:, s3a:, file:, ...): the command line reads it, not Python."""
    head = path.split("/", 1)[0]
    return ":" in head and len(head) > 2


def _is_image(x):
    try:
        import nibabel as nib
    except ImportError:
        return False
    return isinstance(x, nib.spatialimages.SpatialImage)


def _is_surface_image(x):
    try:
        from nilearn.surface import SurfaceImage
    except ImportError:
        return False
    return isinstance(x, SurfaceImage)


def _parts(mesh):
    return ", ".join("%s %d vertices" % (p, mesh.parts[p].n_vertices) for p in mesh.parts)


def _is_spark_dataframe(x):
    try:
        from pyspark.sql import DataFrame
    except ImportError:
        return False
    return isinstance(x, DataFrame)


def _local_uri(path):
    return "file://" + os.path.abspath(path)
