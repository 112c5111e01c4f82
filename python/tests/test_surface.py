"""Cortical-surface data on nilearn's own fsaverage5 meshes (10,242 vertices a hemisphere,
shipped in nilearn's wheel): nilearn SurfaceImages and GIFTI files in, TFCE and clusters on the
mesh out, checked against PALM's definitions written here the naive way, and the nilearn
drop-in giving the TFCE that nilearn itself turns off on surfaces."""

import os
import warnings

import nibabel as nib
import numpy as np
import pandas as pd
import pytest
from scipy import ndimage, sparse, stats
from scipy.sparse.csgraph import connected_components

import nlspark
from nlspark.nilearn import non_parametric_inference

SUBJECTS = 10


@pytest.fixture(scope="module")
def study():
    from nilearn import datasets, surface
    mesh = datasets.load_fsaverage("fsaverage5")["white_matter"]
    rng = np.random.default_rng(44)
    left = mesh.parts["left"].coordinates
    # an effect in a patch of the left hemisphere (within 20 mm of vertex 100), noise elsewhere
    patch = (np.linalg.norm(left - left[100], axis=1) < 20).astype(float)
    imgs = [surface.SurfaceImage(mesh=mesh, data={
        "left": rng.standard_normal(len(left)) + 1.5 * patch,
        "right": rng.standard_normal(mesh.parts["right"].n_vertices)})
        for _ in range(SUBJECTS)]
    return mesh, imgs


def _mesh_arrays(mesh):
    coords, faces, offset = [], [], 0
    for p in mesh.parts:
        coords.append(np.asarray(mesh.parts[p].coordinates, dtype=np.float32).astype(float))
        faces.append(np.asarray(mesh.parts[p].faces) + offset)
        offset += len(coords[-1])
    return np.concatenate(coords), np.concatenate(faces)


def _write_hemisphere_meshes(mesh, directory):
    """Each hemisphere of a nilearn PolyMesh as its own .surf.gii (CIFTI's two cortex meshes),
    as nibabel writes them; their paths, left then right."""
    paths = []
    for side in ("left", "right"):
        part = mesh.parts[side]
        paths.append(str(directory / ("%s.surf.gii" % side)))
        nib.save(nib.gifti.GiftiImage(darrays=[
            nib.gifti.GiftiDataArray(np.asarray(part.coordinates, np.float32),
                                     intent="NIFTI_INTENT_POINTSET"),
            nib.gifti.GiftiDataArray(np.asarray(part.faces, np.int32),
                                     intent="NIFTI_INTENT_TRIANGLE")]), paths[-1])
    return paths


def _palm_tfce(z, coords, faces, e=1.0, h=2.0, area=None, top=None):
    """palm_tfce on a surface: for h in dh:dh:max(z) (dh = max / 100), each connected component
    of z >= h adds (sum of its vertex areas)^E h^H to its vertices; times dh. Vertex areas as
    palm_calcarea (a third of the areas of the vertex's triangles) unless given; top: the
    maximum that sets dh, when it is another map's (a CIFTI study's whole grayordinate map)."""
    if area is None:
        a = coords[faces[:, 1]] - coords[faces[:, 0]]
        b = coords[faces[:, 2]] - coords[faces[:, 0]]
        tri = 0.5 * np.linalg.norm(np.cross(a, b), axis=1)
        area = np.zeros(len(coords))
        for k in range(3):
            np.add.at(area, faces[:, k], tri / 3)
    edges = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    adj = sparse.coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])),
                            shape=(len(coords),) * 2).tocsr()
    adj = adj + adj.T
    top = z.max() if top is None else top
    dh = top / 100
    out = np.zeros(len(z))
    for k in range(1, 101):
        height = k * dh if k < 100 else top  # MATLAB's dh:dh:top ends at top
        idx = np.flatnonzero(z >= height)
        _, label = connected_components(adj[idx][:, idx], directed=False)
        out[idx] += np.bincount(label, weights=area[idx])[label] ** e * height ** h
    return out * dh, area


def test_one_sample_tfce_on_fsaverage5_is_palms_on_z(spark, study, tmp_path):
    mesh, imgs = study
    r = nlspark.one_sample(imgs, tfce=True, cluster_threshold=3.0, tail="upper",
                           permutations=100, seed=2, output=tmp_path / "out", spark=spark)
    data = np.stack([np.concatenate([i.data.parts[p] for p in mesh.parts]) for i in imgs])
    t = stats.ttest_1samp(data, 0).statistic
    np.testing.assert_allclose(r.maps["observed"], t, rtol=1e-10)
    z = stats.norm.isf(stats.t.sf(t, SUBJECTS - 1))
    coords, faces = _mesh_arrays(mesh)
    want, area = _palm_tfce(z, coords, faces)
    np.testing.assert_allclose(r.maps["tfce"], want, rtol=1e-9)
    # clusters: the area of each vertex's component of z >= 3 (on z, as PALM's -C)
    assert r.maps["cluster_size"].max() > 100  # the patch, in mm2
    patch = r.maps["cluster_size"] == r.maps["cluster_size"].max()
    np.testing.assert_allclose(r.maps["cluster_size"].max(), area[patch].sum(), rtol=1e-12)
    assert np.all(z[patch] >= 3)
    # the maps as GIFTI on every vertex, as nibabel (and nilearn, Workbench) read them
    tfce = nib.load(str(tmp_path / "out" / "tfce.func.gii")).agg_data()
    np.testing.assert_array_equal(tfce, r.maps["tfce"].astype(np.float32))
    assert r.summary["whole_map"]["tfce_extent_exponent"] == 1.0
    assert r.summary["findings"]["elements"] == "vertices"
    # report.html draws both hemispheres of fsaverage5 (two disconnected parts of the staged
    # mesh), each from the side and from the midline
    html = (tmp_path / "out" / "report.html").read_text()
    for view in ("left lateral", "left medial", "right lateral", "right medial"):
        assert 'alt="%s view"' % view in html, view
    # the staged mesh is kept beside the outputs (it is gone after the call), as nibabel reads it
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nibabel warns of a header that does not match
        kept = nib.load(str(tmp_path / "out" / "surface.surf.gii"))
    coords, faces = _mesh_arrays(mesh)
    np.testing.assert_array_equal(kept.agg_data("NIFTI_INTENT_POINTSET"), coords)
    np.testing.assert_array_equal(kept.agg_data("NIFTI_INTENT_TRIANGLE"), faces)
    assert r.summary["inputs"]["mesh_uris"] == {"surface": "surface.surf.gii"}


def test_given_vertex_areas_weigh_the_extents(spark, study):
    """vertex_area= (PALM's -s surf area): an array or a SurfaceImage, one area per vertex."""
    from nilearn import surface
    mesh, imgs = study
    n = sum(mesh.parts[p].n_vertices for p in mesh.parts)
    area = 0.75 + (np.arange(n) % 5) * 0.5
    kw = dict(tfce=True, tail="upper", permutations=20, seed=4, spark=spark)
    r = nlspark.one_sample(imgs, vertex_area=area, **kw)
    z = stats.norm.isf(stats.t.sf(r.maps["observed"], SUBJECTS - 1))
    coords, faces = _mesh_arrays(mesh)
    want, _ = _palm_tfce(z, coords, faces, area=area)
    np.testing.assert_allclose(r.maps["tfce"], want, rtol=1e-9)
    left = mesh.parts["left"].n_vertices
    as_image = surface.SurfaceImage(mesh=mesh, data={"left": area[:left], "right": area[left:]})
    again = nlspark.one_sample(imgs, vertex_area=as_image, **kw)
    assert again.maps["tfce"].tobytes() == r.maps["tfce"].tobytes()
    with pytest.raises(ValueError, match="vertex_area= .* is one value per vertex \\(%d\\), but"
                       " it holds 1 x 10" % n):
        nlspark.one_sample(imgs, vertex_area=area[:10], **kw)


def test_gifti_files_and_a_mesh_file_give_the_same_bytes_as_surface_images(spark, study,
                                                                             tmp_path):
    from nilearn import surface
    mesh, imgs = study
    left = [surface.SurfaceImage(mesh=surface.PolyMesh(left=mesh.parts["left"]),
                                 data={"left": i.data.parts["left"]}) for i in imgs]
    files = []
    for k, img in enumerate(left):
        f = tmp_path / ("sub-%02d.func.gii" % (k + 1))
        nib.gifti.GiftiImage(darrays=[nib.gifti.GiftiDataArray(
            np.asarray(img.data.parts["left"]), datatype="NIFTI_TYPE_FLOAT64")]).to_filename(
                str(f), mode="force")
        files.append(str(f))
    coords = np.asarray(mesh.parts["left"].coordinates, dtype=np.float32)
    faces = np.asarray(mesh.parts["left"].faces, dtype=np.int32)
    mesh_file = tmp_path / "lh.white.surf.gii"
    nib.save(nib.gifti.GiftiImage(darrays=[
        nib.gifti.GiftiDataArray(coords, intent="NIFTI_INTENT_POINTSET"),
        nib.gifti.GiftiDataArray(faces, intent="NIFTI_INTENT_TRIANGLE")]), str(mesh_file))
    kw = dict(tfce=True, permutations=50, seed=5, spark=spark)
    a = nlspark.one_sample(left, **kw)
    b = nlspark.one_sample(files, surface=str(mesh_file), **kw)
    for name in ("observed", "tfce", "p_fwer_tfce"):
        assert a.maps[name].tobytes() == b.maps[name].tobytes(), name
    with pytest.raises(ValueError, match="it is surface data \\(GIFTI or MGH\\), which needs its"
                       " mesh; give surface="):
        nlspark.one_sample(files, permutations=10, spark=spark)


def test_the_nilearn_drop_in_gives_tfce_where_nilearn_turns_it_off(spark, study):
    from nilearn.glm.second_level import non_parametric_inference as nilearn_npi
    from nilearn.surface import SurfaceImage
    mesh, imgs = study
    design = pd.DataFrame({"intercept": np.ones(SUBJECTS)})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        theirs = nilearn_npi(imgs, design_matrix=design, n_perm=10, tfce=True)
    assert isinstance(theirs, SurfaceImage)  # nilearn: logp_max_t only, TFCE switched off
    assert any("not yet implemented for surface" in str(w.message) for w in caught)
    ours = non_parametric_inference(imgs, design_matrix=design, n_perm=50, tfce=True,
                                    threshold=0.001, random_state=0, spark=spark)
    assert set(ours) == {"t", "logp_max_t", "tfce", "logp_max_tfce", "size",
                         "logp_max_size", "mass", "logp_max_mass"}
    for img in ours.values():
        assert isinstance(img, SurfaceImage)
        assert {p: d.shape for p, d in img.data.parts.items()} == {
            "left": (10242,), "right": (10242,)}
    # (nilearn's own call above leaves each part as vertices x 1)
    data = np.stack([np.concatenate([np.asarray(i.data.parts[p]).reshape(-1)
                                     for p in mesh.parts]) for i in imgs])
    t = np.concatenate([ours["t"].data.parts[p] for p in mesh.parts])
    np.testing.assert_allclose(t, stats.ttest_1samp(data, 0).statistic, rtol=1e-9)
    z = stats.norm.isf(stats.t.sf(t, SUBJECTS - 1))
    want, _ = _palm_tfce(z, *_mesh_arrays(mesh))
    got = np.concatenate([ours["tfce"].data.parts[p] for p in mesh.parts])
    np.testing.assert_allclose(got, want, rtol=1e-9)
    size = np.concatenate([ours["size"].data.parts[p] for p in mesh.parts])
    assert size.max() > 100  # the patch's area in mm2, at z > norm.isf(0.001)
    assert np.all(z[size > 0] > stats.norm.isf(0.001))


def test_cifti_grayordinates_written_by_nibabel(spark, study, tmp_path):
    """A .dscalar.nii of every subject (nibabel's CIFTI-2: maps by grayordinates, the left
    cortex without a "medial wall", the right whole, five thalamus voxels): t on every
    grayordinate, maps nibabel reads back with the same brain models, TFCE on the cortex and
    the voxels (PALM's surface and volume definitions, one dh; scipy.ndimage labels the voxels),
    and TFCE on the cortex alone the same bytes as the SurfaceImages with that mask."""
    from nilearn import surface
    from nibabel import cifti2
    mesh, imgs = study
    n_left = mesh.parts["left"].n_vertices
    wall = np.arange(n_left) % 7 == 0
    cortex = (cifti2.BrainModelAxis.from_mask(~wall, name="CortexLeft")
              + cifti2.BrainModelAxis.from_mask(np.ones(mesh.parts["right"].n_vertices, bool),
                                                name="CortexRight"))
    grid = np.zeros((3, 3, 3), bool)
    grid[1, 1, :] = grid[0, 2, 1] = grid[2, 0, 0] = True
    models = cortex + cifti2.BrainModelAxis.from_mask(grid, name="thalamus_left",
                                                       affine=np.diag([2.0, 2.0, 2.0, 1.0]))
    rng = np.random.default_rng(9)
    # (earlier tests' nilearn calls may leave each part as a column: ravel)
    cortex_data = np.stack([np.concatenate([np.ravel(i.data.parts["left"])[~wall],
                                            np.ravel(i.data.parts["right"])]) for i in imgs])
    data = np.hstack([cortex_data, 1 + rng.standard_normal((SUBJECTS, 5))]).astype(np.float32)
    names = cifti2.ScalarAxis(["sub-%02d" % (k + 1) for k in range(SUBJECTS)])
    every = tmp_path / "thickness.dscalar.nii"
    cifti2.Cifti2Image(data, header=(names, models)).to_filename(str(every))

    r = nlspark.one_sample(str(every), surface=mesh, permutations=50, seed=3,
                           output=tmp_path / "out", spark=spark)
    # the file's float32 values, t in float64
    np.testing.assert_allclose(r.maps["observed"],
                               stats.ttest_1samp(data.astype(np.float64), 0).statistic,
                               rtol=1e-9)
    img = nib.load(str(tmp_path / "out" / "observed.dscalar.nii"))
    assert img.header.get_axis(1) == models
    np.testing.assert_array_equal(np.asarray(img.dataobj)[0],
                                  r.maps["observed"].astype(np.float32))
    assert r.summary["inputs"]["cifti_brain_models"] == (
        "CORTEX_LEFT %d of %d vertices, CORTEX_RIGHT %d of %d vertices, THALAMUS_LEFT 5 voxels"
        % ((~wall).sum(), n_left, mesh.parts["right"].n_vertices, mesh.parts["right"].n_vertices))
    # TFCE over every grayordinate: the cortex as PALM's -tfce2D on the mesh, the voxels as its
    # volume TFCE (E = 0.5, faces), with one dh from the whole map's maximum
    v = nlspark.one_sample(str(every), surface=mesh, tfce=True, tail="upper", permutations=20,
                           seed=3, spark=spark)
    z = stats.norm.isf(stats.t.sf(v.maps["observed"], SUBJECTS - 1))
    coords, faces = _mesh_arrays(mesh)
    on_mesh = np.full(len(coords), -np.inf)
    on_mesh[np.concatenate([~wall, np.ones(mesh.parts["right"].n_vertices, bool)])] = z[:-5]
    want_cortex, _ = _palm_tfce(on_mesh, coords, faces, top=z.max())
    dh = z.max() / 100
    volume = np.full(grid.shape, -np.inf)
    volume[grid] = z[-5:]  # nibabel's from_mask lists the voxels in C order, as np's mask does
    want_voxels = np.zeros(grid.shape)
    for k in range(1, 101):
        height = k * dh if k < 100 else z.max()
        label, _ = ndimage.label(volume >= height)  # faces: PALM's default connectivity 6
        sizes = np.bincount(label.ravel())
        want_voxels[label > 0] += np.sqrt(sizes[label[label > 0]]) * height ** 2
    want = np.concatenate([want_cortex[on_mesh > -np.inf], want_voxels[grid] * dh])
    np.testing.assert_allclose(v.maps["tfce"], want, rtol=1e-9)
    assert (v.maps["tfce"][-5:] > 0).sum() >= 3
    assert v.summary["whole_map"]["voxel_tfce_extent_exponent"] == 0.5
    # the voxels alone (a CIFTI file without a cortex: no mesh to give) are a volume: PALM's
    # volume TFCE on z (E = 0.5, faces) with their own dh
    thalamus = cifti2.BrainModelAxis.from_mask(grid, name="thalamus_left",
                                               affine=np.diag([2.0, 2.0, 2.0, 1.0]))
    voxels_only = tmp_path / "thalamus.dscalar.nii"
    cifti2.Cifti2Image(data[:, -5:], header=(names, thalamus)).to_filename(str(voxels_only))
    o = nlspark.one_sample(str(voxels_only), tfce=True, tail="upper", permutations=20, seed=3,
                           output=tmp_path / "thalamus", spark=spark)
    zo = stats.norm.isf(stats.t.sf(o.maps["observed"], SUBJECTS - 1))
    volume = np.full(grid.shape, -np.inf)
    volume[grid] = zo
    want = np.zeros(grid.shape)
    for k in range(1, 101):
        height = k * zo.max() / 100 if k < 100 else zo.max()
        label, _ = ndimage.label(volume >= height)
        sizes = np.bincount(label.ravel())
        want[label > 0] += np.sqrt(sizes[label[label > 0]]) * height ** 2
    np.testing.assert_allclose(o.maps["tfce"], want[grid] * zo.max() / 100, rtol=1e-9)
    assert o.summary["whole_map"]["space"] == "CIFTI subcortical voxels, no cortex"
    written = nib.load(str(tmp_path / "thalamus" / "tfce.dscalar.nii"))
    assert written.header.get_axis(1) == thalamus

    # the cortex alone, meshes as two files: TFCE as on the SurfaceImages with that mask
    meshes = _write_hemisphere_meshes(mesh, tmp_path)
    only_cortex = tmp_path / "cortex.dscalar.nii"
    cifti2.Cifti2Image(data[:, :len(cortex)], header=(names, cortex)).to_filename(
        str(only_cortex))
    kw = dict(tfce=True, tail="upper", permutations=50, seed=6, spark=spark)
    a = nlspark.one_sample(str(only_cortex), surface=tuple(meshes), **kw)
    mask = surface.SurfaceImage(mesh=mesh, data={
        "left": (~wall).astype(float), "right": np.ones(mesh.parts["right"].n_vertices)})
    as_float32 = [surface.SurfaceImage(mesh=mesh, data={
        p: np.ravel(i.data.parts[p]).astype(np.float32) for p in ("left", "right")})
        for i in imgs]
    b = nlspark.one_sample(as_float32, mask=mask, **kw)
    for name in ("observed", "tfce", "p_fwer_tfce"):
        assert a.maps[name].tobytes() == b.maps[name].tobytes(), name
    # glm on a directory of one file per subject, the meshes as the PolyMesh: the same t (a
    # least-squares fit: to rounding)
    per_subject = tmp_path / "per-subject"
    per_subject.mkdir()
    for k in range(SUBJECTS):
        cifti2.Cifti2Image(data[k:k + 1, :len(cortex)], header=(
            cifti2.ScalarAxis(["sub-%02d" % (k + 1)]), cortex)).to_filename(
                str(per_subject / ("sub-%02d.dscalar.nii" % (k + 1))))
    g = nlspark.glm(str(per_subject), np.ones((SUBJECTS, 1)), np.ones((1, 1)), surface=mesh,
                    permutations=10, spark=spark)
    np.testing.assert_allclose(g.maps["tstat1"], a.maps["observed"], rtol=1e-9)
    # a cortex without its mesh, in Python's terms
    with pytest.raises(ValueError, match="which needs its mesh; give surface=\\(left, \\.\\.\\.\\)"
                       " with the mesh"):
        nlspark.one_sample(str(only_cortex), surface=(None, meshes[1]), permutations=10,
                           spark=spark)
    # a second group whose file has other brain models is named, not misread
    with pytest.raises(ValueError, match="its brain models \\(CORTEX_LEFT .* THALAMUS_LEFT 5"
                       " voxels\\) are not the study's"):
        nlspark.two_sample(str(only_cortex), str(every), surface=tuple(meshes), permutations=10,
                           spark=spark)


def test_isc_and_timeseries_correlation_of_surface_series(spark, study, tmp_path):
    """Surface series, one per subject: nilearn SurfaceImages of their time points and
    nibabel's CIFTI-2 .dtseries.nii files give the ISC of the same values as a (subjects,
    timepoints, vertices) array, which equals the median of numpy's pairwise Pearson r; maps
    come back on the mesh (.func.gii) and in CIFTI; timeseries-correlation of one subject's
    series is that of its array."""
    from nilearn import surface
    from nibabel import cifti2
    mesh, _ = study
    n_left, n_right = mesh.parts["left"].n_vertices, mesh.parts["right"].n_vertices
    rng = np.random.default_rng(5)
    subjects, timepoints = 4, 16
    shared = np.sin(0.6 * np.arange(timepoints))[:, None] * (np.arange(n_left + n_right) % 2)
    series = (shared + rng.standard_normal((subjects, timepoints, n_left + n_right))).astype(
        np.float32)
    imgs = [surface.SurfaceImage(mesh=mesh, data={"left": s[:, :n_left].T,
                                                  "right": s[:, n_left:].T}) for s in series]
    kw = dict(null="circle-shift", permutations=20, seed=2, spark=spark)
    from_images = nlspark.isc(imgs, output=tmp_path / "isc", **kw)
    from_array = nlspark.isc(series, **kw)
    for name in ("isc", "p", "p_fwer"):
        assert from_images.maps[name].tobytes() == from_array.maps[name].tobytes(), name
    for v in (0, 1, 777, n_left + 5):
        r = np.corrcoef(series[:, :, v].astype(np.float64))[np.triu_indices(subjects, 1)]
        np.testing.assert_allclose(from_images.maps["isc"][v], np.median(r), rtol=1e-12)
    written = nib.load(str(tmp_path / "isc" / "isc.func.gii"))
    np.testing.assert_array_equal(written.darrays[0].data,
                                  from_images.maps["isc"].astype(np.float32))
    # nibabel's CIFTI-2 series, one file per subject, the left cortex without a "medial wall"
    wall = np.arange(n_left) % 5 == 0
    models = (cifti2.BrainModelAxis.from_mask(~wall, name="CortexLeft")
              + cifti2.BrainModelAxis.from_mask(np.ones(n_right, bool), name="CortexRight"))
    kept = np.concatenate([~wall, np.ones(n_right, bool)])
    files = []
    for k, s in enumerate(series):
        files.append(str(tmp_path / ("sub-%d.dtseries.nii" % k)))
        cifti2.Cifti2Image(s[:, kept], header=(cifti2.SeriesAxis(0, 2.0, timepoints),
                                               models)).to_filename(files[-1])
    meshes = _write_hemisphere_meshes(mesh, tmp_path)
    from_cifti = nlspark.isc(files, surface=tuple(meshes), output=tmp_path / "cifti", **kw)
    from_kept = nlspark.isc(series[:, :, kept], **kw)
    assert from_cifti.maps["isc"].tobytes() == from_kept.maps["isc"].tobytes()
    img = nib.load(str(tmp_path / "cifti" / "isc.dscalar.nii"))
    assert img.header.get_axis(1) == models
    # one subject's series against a target
    target = np.cos(0.6 * np.arange(timepoints))
    one = nlspark.timeseries_correlation(imgs[0], target, permutations=30, seed=1, spark=spark)
    as_array = nlspark.timeseries_correlation(series[0], target, permutations=30, seed=1,
                                              spark=spark)
    assert one.maps["observed"].tobytes() == as_array.maps["observed"].tobytes()
