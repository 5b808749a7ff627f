"""Machine-readable manifests of the recorded data folders, and their index.

    python -m gpusim.data.manifest check   # exit 1 when a manifest or the index is stale
    python -m gpusim.data.manifest write   # (re)write data/*/*/manifest.json, data/index.json

Each ``data/<gpu>/<date>_<what>/manifest.json`` is read off what the folder already holds,
never guessed: the provenance a harness recorded (a ``provenance`` object in one of its JSON
files, else a record's top-level ``gpu``/``date``/``git_commit``), ``versions.txt`` and the
``nvidia-smi`` captures, and the command its README quotes. A field nothing records is null
and listed under ``unknown``; ``sources`` names the file each known field was read from.
``outputs`` lists every file with its size and sha256, so an edit of measured data shows.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from gpusim.data.folder_facts import harness_now, moved_from, note_of, readme_command
from gpusim.data.layout import DATA_DIR, REPO_ROOT

MANIFEST = "manifest.json"
INDEX = "index.json"
FIELDS = ("command", "commit", "inputs", "gpu", "driver", "cuda", "libraries", "date")
#: A provenance object's library version keys, by library.
LIBRARY_KEYS = {
    "python": "python",
    "numpy": "numpy_version",
    "cupy": "cupy_version",
    "torch": "torch_version",
    "cudnn": "cudnn_version",
    "nvrtc": "nvrtc_version",
    "gpusim": "gpusim_version",
}
SMI_DRIVER = re.compile(r"NVIDIA [^,\n]+, (\d+\.\d+(?:\.\d+)?)")
VERSIONS_CUPY = re.compile(r"cupy (\S+) python (\S+)")
VERSIONS_NVCC = re.compile(r"release (\d+\.\d+), V(\S+)")


def folders(data_dir: Path = DATA_DIR) -> list[Path]:
    """Every ``<gpu>/<date>_<what>`` folder under ``data_dir``, sorted."""
    return sorted(p for p in data_dir.glob("*/*") if p.is_dir())


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST)


def _provenance(folder: Path) -> tuple[dict[str, Any], str] | None:
    """The first recorded provenance (``provenance.json`` first), and its file."""
    files = sorted(folder.rglob("*.json"), key=lambda p: (p.name != "provenance.json", str(p)))
    for p in files:
        if p.name == MANIFEST:
            continue
        try:
            doc = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and isinstance(doc.get("provenance"), dict):
            return doc["provenance"], str(p.relative_to(folder))
        if isinstance(doc, dict) and ("gpu" in doc or "gpu_name" in doc) and "date" in doc:
            top = {"gpu_name": doc.get("gpu") or doc.get("gpu_name"), "date_utc": doc["date"]}
            top |= {k: doc[k] for k in ("git_commit",) if k in doc}
            return top, str(p.relative_to(folder))
    return None


def _from_provenance(prov: dict[str, Any], out: dict[str, Any], src: dict, name: str) -> None:
    smi = prov.get("nvidia_smi") or prov.get("nvidia_smi_before") or {}
    found = {
        "commit": prov.get("commit_env") or prov.get("git_commit"),
        "gpu": prov.get("gpu_name"),
        "driver": prov.get("driver_version") or (smi.get("driver_version") if smi else None),
        "date": prov.get("date_utc"),
    }
    if prov.get("command") or prov.get("argv"):
        found["command"] = prov.get("command") or " ".join(prov["argv"])
    cuda = {
        k: prov[k]
        for k in ("cuda_runtime_version", "cuda_driver_version", "cuda_driver_api_version")
        if prov.get(k) is not None
    }
    if cuda:
        found["cuda"] = cuda
    libs = {lib: prov[key] for lib, key in LIBRARY_KEYS.items() if prov.get(key) is not None}
    if libs:
        found["libraries"] = libs
    for key, value in found.items():
        if value is not None and out.get(key) is None:
            out[key], src[key] = value, name


def _from_text(folder: Path, out: dict[str, Any], src: dict) -> None:
    """Versions and the driver from ``versions*.txt`` and the nvidia-smi captures."""
    for p in sorted(folder.rglob("versions*.txt")):
        text = p.read_text(errors="replace")
        libs: dict[str, str] = {}
        if m := VERSIONS_CUPY.search(text):
            libs |= {"cupy": m.group(1), "python": m.group(2)}
        if m := VERSIONS_NVCC.search(text):
            libs["nvcc"] = m.group(2)
        if libs and out.get("libraries") is None:
            out["libraries"], src["libraries"] = libs, str(p.relative_to(folder))
    for p in sorted(folder.rglob("*smi*")):
        m = SMI_DRIVER.search(p.read_text(errors="replace"))
        if m and out.get("driver") is None:
            out["driver"], src["driver"] = m.group(1), str(p.relative_to(folder))
        gpu = re.search(r"(NVIDIA [A-Z]\w+)", p.read_text(errors="replace"))
        if gpu and out.get("gpu") is None:
            out["gpu"], src["gpu"] = gpu.group(1), str(p.relative_to(folder))


def build_manifest(folder: Path) -> dict[str, Any]:
    """The manifest of one data folder, from what the folder records."""
    out: dict[str, Any] = dict.fromkeys(FIELDS)
    src: dict[str, str] = {}
    found = _provenance(folder)
    if found:
        _from_provenance(found[0], out, src, found[1])
    _from_text(folder, out, src)
    if out["command"] is None and (cmd := readme_command(folder)):
        out["command"], src["command"] = cmd, "README.md"
    if out["inputs"] is None and isinstance(out["command"], str):
        inputs = re.findall(r"--(?:cubin-dir|from|results|measured)[ =](\S+)", out["command"])
        if inputs:
            out["inputs"], src["inputs"] = inputs, src["command"]
    date, _, what = folder.name.partition("_")
    doc = {
        "folder": str(folder.relative_to(folder.parents[1])),
        "gpu_folder": folder.parent.name,
        "what": what,
        "folder_date": date,
        **out,
        "outputs": [
            {
                "file": str(p.relative_to(folder)),
                "bytes": p.stat().st_size,
                "sha256": hashlib.sha256(p.read_bytes()).hexdigest(),
            }
            for p in _files(folder)
        ],
        "harness_now": harness_now(out["command"]),
        "moved_from": moved_from(folder.name),
        "note": note_of(folder.name),
        "sources": src,
        "unknown": [k for k in FIELDS if out[k] is None],
    }
    return doc


def index(manifests: list[dict[str, Any]]) -> dict[str, Any]:
    """One entry per folder: where it is, what and when, the command, the commit, file count."""
    return {
        "what": "index of the recorded data folders (python -m gpusim.data.manifest write)",
        "folders": [
            {
                "folder": m["folder"],
                "what": m["what"],
                "date": m["date"] or m["folder_date"],
                "gpu": m["gpu"],
                "command": m["command"],
                "commit": m["commit"],
                "files": len(m["outputs"]),
            }
            for m in manifests
        ],
    }


def _text(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=1, sort_keys=False) + "\n"


def expected(data_dir: Path = DATA_DIR) -> dict[Path, str]:
    """Every manifest's and the index's text as the folders give them now, by path."""
    manifests = [build_manifest(f) for f in folders(data_dir)]
    out = {data_dir / m["folder"] / MANIFEST: _text(m) for m in manifests}
    out[data_dir / INDEX] = _text(index(manifests))
    return out


def stale(data_dir: Path = DATA_DIR) -> list[Path]:
    """The manifests and index whose committed text differs from :func:`expected`."""
    return [p for p, text in expected(data_dir).items() if not p.exists() or p.read_text() != text]


def main(argv: list[str] | None = None) -> int:
    """``check``: list stale files, exit 1 if any; ``write``: rewrite them."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("check", "write"))
    ap.add_argument("--data", type=Path, default=DATA_DIR)
    args = ap.parse_args(argv)
    if args.what == "write":
        for path, text in expected(args.data).items():
            path.write_text(text)
        print(f"wrote {len(folders(args.data))} manifests and {args.data / INDEX}")
        return 0
    bad = stale(args.data)
    for p in bad:
        shown = p.relative_to(REPO_ROOT) if p.is_relative_to(REPO_ROOT) else p
        print(f"stale: {shown}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
