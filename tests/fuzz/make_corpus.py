"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<reader>/):
a few small valid files per reader, in the variants the readers distinguish
(header or not, delimiters, dtypes, byte orders, Fortran order, compressed
or stored, v5 or v7.3, the USPS layout), each well under a few kilobytes so
that the fuzzer mutates structure rather than bulk data.

Run with Debian's Python: /usr/bin/python3 tests/fuzz/make_corpus.py

The evaluation reports beside the selection result (result_json/report.json,
result_json/stability_report.json) come from the command itself, on a
40 x 5 table of random normal values with y = (a > 0):
  topkfs evaluate e.csv --method lasso --k 1,2 -q -o report.json
  topkfs evaluate e.csv --method ridge --protocol stability --seeds 2 --k 2 -q \
      -o stability_report.json
"""

import gzip
import io
import json
import os
import pathlib
import sys
import zipfile

import h5py
import numpy as np
import scipy.io
import scipy.sparse

ROOT = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent / "corpus"
rng = np.random.default_rng(0)
X = np.round(rng.normal(size=(6, 4)), 2)
y = np.array([0, 1, 2, 0, 1, 2])
# Times of writing (gzip, zip and MAT headers) are fixed, so that a rerun
# writes the same bytes and changes only the seeds it adds.
FIXED_DATE = (1980, 1, 1, 0, 0, 0)


def put(reader, name, data):
    folder = ROOT / reader
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)


def csv_text(delimiter, header=True, labels=None):
    out = io.StringIO()
    if header:
        out.write(delimiter.join(["a", "b", "c", "d", "y"]) + "\n")
    for row, label in zip(X, labels if labels is not None else y):
        out.write(delimiter.join([*(f"{v:g}" for v in row), str(label)]) + "\n")
    return out.getvalue().encode()


put("csv", "header.csv", csv_text(","))
put("csv", "no_header.csv", csv_text(",", header=False))
put("csv", "tabs.tsv", csv_text("\t"))
put("csv", "semicolons.csv", csv_text(";", labels=["cat", "dog", "cat", "ox", "dog", "ox"]))
put("csv", "quoted_missing.csv", b'"a","b","y"\n1,NA,"x"\n"2,5",3,"y"\n4,,x\n')
put("csv", "gzip.csv.gz", gzip.compress(csv_text(","), mtime=0))

lines = "".join(f"{label} " + " ".join(f"{j + 1}:{v:g}" for j, v in enumerate(row) if v > 0) + "\n"
                for row, label in zip(X, y))
put("libsvm", "plain.svm", lines.encode())
put("libsvm", "qid_comments.svm", b"# c\n1 qid:3 1:0.5 7:2\n-1 qid:3 2:1e-3\n+1 3:4 # tail\n")
put("libsvm", "gzip.svm.gz", gzip.compress(lines.encode(), mtime=0))


def idx(array, code):
    header = bytes([0, 0, code, array.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


images = rng.integers(0, 255, size=(3, 4, 4), dtype=np.uint8)
put("idx", "uint8-images-idx3-ubyte", idx(images, 0x08))
put("idx", "float-images-idx3", idx(images.astype(np.float32), 0x0D))
put("idx", "int16-matrix-idx2", idx(images.reshape(3, 16).astype(np.int16), 0x0B))
put("idx", "gzip-images-idx3-ubyte.gz", gzip.compress(idx(images, 0x08), mtime=0))


def npy(array):
    out = io.BytesIO()
    np.save(out, array)
    return out.getvalue()


put("npy", "float64.npy", npy(X))
put("npy", "int8_fortran.npy", npy(np.asfortranarray((X * 10).astype(np.int8))))
put("npy", "big_endian_f4.npy", npy(X.astype(">f4")))
put("npy", "images_uint8.npy", npy(images))
put("npy", "bool.npy", npy(X > 0))
version2 = npy(X.astype(np.float32))
put("npy", "version2.npy", version2[:6] + b"\x02\x00" + len(version2[10:128]).to_bytes(4, "little")
    + version2[10:128].replace(b"}", b"}  ", 1)[:-2] + version2[128:])


def npz(compressed, **arrays):
    out = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(out, **arrays)
    return out.getvalue()


put("npz", "stored.npz", npz(False, X=X.astype(np.float32), Y=y))
put("npz", "deflated.npz", npz(True, X=X, Y=y))
put("npz", "split.npz", npz(False, X_train=X[:4], y_train=y[:4], X_test=X[4:], y_test=y[4:]))
out = io.BytesIO()
zipfile.ZIP64_LIMIT = 16
with zipfile.ZipFile(out, "w", allowZip64=True) as archive:
    archive.writestr(zipfile.ZipInfo("X.npy", FIXED_DATE), npy(X))
    archive.writestr(zipfile.ZipInfo("Y.npy", FIXED_DATE), npy(y))
put("npz", "zip64.npz", out.getvalue())


def mat(compressed=False, **kwargs):
    out = io.BytesIO()
    scipy.io.savemat(out, kwargs, do_compression=compressed)
    # The header's text holds the time of writing: a fixed one instead.
    return b"MATLAB 5.0 MAT-file, Created by: topkfs fuzz corpus".ljust(116) + out.getvalue()[116:]


put("mat", "v5.mat", mat(X=X, Y=y.reshape(-1, 1)))
put("mat", "v7_compressed.mat", mat(True, X=X.astype(np.float32), Y=y.astype(np.uint8)))
put("mat", "sparse_row_target.mat", mat(X=scipy.sparse.csc_matrix(X * (X > 0)), Y=y.reshape(1, -1)))


def mat73(**variables):
    """A v7.3 file as MATLAB lays it out: HDF5 behind a 512-byte user block
    holding the MAT header, a dataset per variable, stored transposed, with
    a MATLAB_class attribute (a null-terminated fixed-length string)."""
    out = io.BytesIO()
    with h5py.File(out, "w", userblock_size=512) as f:
        for name, (values, matlab_class) in variables.items():
            dataset = f.create_dataset(name, data=values.T)
            kind = h5py.h5t.C_S1.copy()
            kind.set_size(len(matlab_class))
            kind.set_strpad(h5py.h5t.STR_NULLTERM)
            attr = h5py.h5a.create(dataset.id, b"MATLAB_class", kind,
                                   h5py.h5s.create(h5py.h5s.SCALAR))
            attr.write(np.array(matlab_class.encode(), dtype="S%d" % len(matlab_class)),
                       mtype=kind)
    data = bytearray(out.getvalue())
    header = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: corpus HDF5 schema 1.00 ."
    data[:128] = header.ljust(116, b" ") + b"\0" * 8 + b"\x00\x02IM"
    return bytes(data)


put("mat", "v73.mat", mat73(X=(X, "double"), Y=(y.reshape(-1, 1).astype(np.uint8), "uint8")))


def hdf5(build):
    out = io.BytesIO()
    with h5py.File(out, "w") as f:
        build(f)
    return out.getvalue()


def root_pair(f):
    f["X"] = X.astype(np.float32)
    f["Y"] = y


def usps(f):
    for part, rows in (("train", slice(0, 4)), ("test", slice(4, 6))):
        f[f"{part}/data"] = X[rows]
        f[f"{part}/target"] = y[rows].astype(np.int32)


def chunked(f):
    f.create_dataset("X", data=X, chunks=(2, 2), compression="gzip")
    f["Y"] = y.astype(np.float64)


def messages(f):
    # The object header messages the reader walks before libhdf5 decodes them
    # (src/io/hdf5_message_bounds.cpp): enumerated and compound datatypes, a
    # fill value, a compact layout, a filter pipeline with a name and values,
    # maximum dimensions, and attributes of those types.
    low_high = h5py.enum_dtype({"low": 0, "high": 1}, basetype="i1")
    pair = np.dtype([("a", "i2"), ("b", "f4")])
    f.create_dataset("X", data=X.astype(np.float32), maxshape=(None, X.shape[1]), chunks=(2, 2),
                     compression="gzip", shuffle=True, fillvalue=1.5)
    f["Y"] = y.astype(np.int8)
    f.create_dataset("kinds", data=y.astype(np.int8), dtype=low_high)
    f.create_dataset("pairs", data=np.zeros(2, dtype=pair))
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    dcpl.set_obj_track_times(False)  # no time of writing in the seed
    small = np.arange(4, dtype="f4")
    h5py.h5d.create(f.id, b"compact", h5py.h5t.py_create(small.dtype),
                    h5py.h5s.create_simple((4,)), dcpl).write(h5py.h5s.ALL, h5py.h5s.ALL, small)
    f["X"].attrs["kind"] = np.array([1], dtype=low_high)
    f["X"].attrs["pair"] = np.zeros(1, dtype=pair)


def links(f):
    # The kinds of links the walk of the group structures reads
    # (src/io/hdf5_symbol_tables.cpp): a subgroup, a second hard link to it,
    # and soft links to a dataset and to the root group.
    root_pair(f)
    f["more/Z"] = y.astype(np.float64)
    f["again"] = f["more"]
    f["alias"] = h5py.SoftLink("/X")
    f["top"] = h5py.SoftLink("/")


put("hdf5", "root_pair.h5", hdf5(root_pair))
put("hdf5", "links.h5", hdf5(links))
put("hdf5", "usps_layout.h5", hdf5(usps))
put("hdf5", "chunked_gzip.h5", hdf5(chunked))
put("hdf5", "messages.h5", hdf5(messages))

selection = {"format": 1, "method": "dnn-top", "k": 2, "selected": [3, 1],
             "selected_names": ["d", "b"], "ranking": [3, 1, 0, 2], "scores": [0.1, 0.5, 0.0, 0.9],
             "history": [{"epoch": 1, "loss": 0.5, "seconds": 0.1, "val_loss": 0.6}],
             "fit_seconds": 0.2, "options": {"seed": 1},
             "data": {"path": "d.csv", "format": "csv", "rows": 6, "columns": 4,
                      "target_kind": "classes", "feature_names": ["a", "b", "c", "d"]},
             "notes": [], "warnings": [],
             "downstream": {"model": "extra-trees", "metric": "accuracy", "value": 50.0,
                            "train_rows": 4, "test_rows": 2}}
put("result_json", "selection.json", json.dumps(selection, indent=1).encode())


def cbor(value):
    """The CBOR encoding (RFC 8949) of the few types the HDF5 reader program's
    answer holds: maps with text keys, arrays, text, booleans, integers and
    doubles (Debian 12 has no CBOR module in its Python)."""
    def head(major, n):
        if n < 24:
            return bytes([major << 5 | n])
        for extra, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
            if n < 256 ** size:
                return bytes([major << 5 | extra]) + n.to_bytes(size, "big")
        raise ValueError(n)
    if isinstance(value, bool):
        return bytes([0xF5 if value else 0xF4])
    if isinstance(value, int):
        return head(0, value) if value >= 0 else head(1, -1 - value)
    if isinstance(value, float):
        return b"\xfb" + np.float64(value).byteswap().tobytes()
    if isinstance(value, str):
        data = value.encode()
        return head(3, len(data)) + data
    if isinstance(value, list):
        return head(4, len(value)) + b"".join(cbor(v) for v in value)
    if isinstance(value, dict):
        return head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())
    raise TypeError(type(value))


# The reader program's answers (src/io/reader_process_protocol.cpp's
# describe_dataset): 6 rows of 4 classes' images with a predefined split,
# and 6 rows of two real targets.
answer_classes = {"rows": 6, "cols": 4, "spilled": False, "feature_names": ["a", "b", "c", "d"],
                  "target_kind": 1, "labels": [0, 1, 2, 0, 1, 2], "class_names": ["x", "y", "z"],
                  "target_cols": 0, "targets": [], "target_names": ["label"],
                  "notes": ["read"], "train": [0, 1, 2, 3], "test": [4, 5],
                  "image_shape": [2, 2, 1]}
answer_real = {"rows": 6, "cols": 4, "spilled": True, "feature_names": [], "target_kind": 2,
               "labels": [], "class_names": [], "target_cols": 2,
               "targets": [float(v) for v in np.round(rng.normal(size=12), 2)],
               "target_names": ["u", "v"], "notes": []}
put("reader_answer", "classes.cbor", cbor(answer_classes))
put("reader_answer", "real_targets.cbor", cbor(answer_real))
