"""A zip of a data folder (memos and their sources), uploaded on the scorecard page, unpacked
into a scratch folder with every hostile-archive guard: no entry may leave the folder (``..``,
absolute or drive-letter names), no symlink, device or encrypted entry, a bounded number of
files and a bounded total size (bytes counted as they are decompressed, not as the archive
claims). Refusals are typed errors naming the entry; files that are not memo or source JSON
are skipped and named. Core logic, not a page's: the dashboard's ``ui.data`` calls it and the
page shows the result.
"""

from __future__ import annotations

import stat
import zipfile
from io import BytesIO
from pathlib import Path, PurePosixPath

from pe_eval_core.errors import InvalidNameError, UploadArchiveError
from pe_eval_core.files import safe_name
from pe_eval_core.limits import INPUT_BYTES, ZIP_FILES, exceeded

ZIP_BYTES = INPUT_BYTES
"""The whole zip, uncompressed, may hold no more than one input file's worth of bytes."""
WANTED = ("explain_", "dx_report_")
CHUNK = 64 * 1024


def _refuse(zip_name: str, entry: str, why: str) -> UploadArchiveError:
    return UploadArchiveError(f"uploaded zip {zip_name}: entry {entry[:200]!r} {why}")


def _member_name(zip_name: str, info: zipfile.ZipInfo) -> PurePosixPath:
    """The entry's path inside the archive, refused when it could leave the folder."""
    raw = info.filename
    if "\x00" in raw or "\\" in raw:
        raise _refuse(zip_name, raw, "has a backslash or NUL in its name")
    path = PurePosixPath(raw)
    if path.is_absolute() or (path.parts and path.parts[0].endswith(":")):
        raise _refuse(zip_name, raw, "is an absolute path (it would be written outside the folder)")
    if ".." in path.parts:
        raise _refuse(zip_name, raw, "climbs out of the folder with '..'")
    return path


def _kind(info: zipfile.ZipInfo) -> str:
    """'dir', 'file' or what else the entry is (a symlink, a device...)."""
    mode = info.external_attr >> 16  # Unix mode, when the archiver stored one
    if info.is_dir():
        return "dir"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_IFMT(mode) and not stat.S_ISREG(mode):  # no type bits: a plain file (DOS, writestr)
        return "not a regular file"
    return "file"


def extract_zip(raw: bytes, zip_name: str, dest: Path) -> list[dict[str, str]]:
    """Unpack the memo and source files of ``raw`` flat into ``dest`` (an empty folder).

    Returns the entries skipped (``file``, ``reason``): other files, names that are not plain
    file names. Raises ``UploadArchiveError`` (not a zip, an entry leaving the folder, a
    symlink, an encrypted entry, two entries of one name) or ``InputLimitError`` (too many
    entries, too many bytes) naming the entry or the limit; ``dest`` may then hold part of the
    archive, the caller removes it."""
    try:
        archive = zipfile.ZipFile(BytesIO(raw))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise UploadArchiveError(f"uploaded {zip_name} is not a readable zip file: {exc}") from None
    skipped: list[dict[str, str]] = []
    with archive:
        infos = archive.infolist()
        exceeded(ZIP_FILES, where=f"uploaded zip {zip_name}", field="(entries)", got=len(infos),
                 input="memo")  # fmt: skip
        claimed = sum(i.file_size for i in infos)
        exceeded(ZIP_BYTES, where=f"uploaded zip {zip_name}", field="(uncompressed total)",
                 got=claimed, input="memo")  # fmt: skip
        seen: dict[str, str] = {}
        total = 0
        for info in infos:
            path = _member_name(zip_name, info)
            kind = _kind(info)
            if kind == "dir":
                continue
            if kind != "file":
                raise _refuse(zip_name, info.filename, f"is {kind}: only plain files are read")
            if info.flag_bits & 0x1:
                raise _refuse(zip_name, info.filename, "is encrypted")
            name = path.name
            if (path.parts and path.parts[0] == "__MACOSX") or name.startswith("._"):
                continue  # the Finder's resource forks, not files of the folder
            if not (name.startswith(WANTED) and name.endswith(".json")):
                skipped.append({"file": info.filename, "reason": "not a memo or source file"})
                continue
            try:
                safe_name(name, "file name")
            except InvalidNameError:
                skipped.append({"file": info.filename, "reason": "not a plain file name"})
                continue
            if name in seen:
                raise _refuse(zip_name, info.filename, f"has the same name as {seen[name]!r}")
            seen[name] = info.filename
            try:
                with archive.open(info) as src, (dest / name).open("xb") as out:
                    while chunk := src.read(CHUNK):
                        total += len(chunk)
                        exceeded(ZIP_BYTES, where=f"uploaded zip {zip_name}",
                                 field="(uncompressed total)", got=total, input="memo")  # fmt: skip
                        out.write(chunk)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError) as exc:
                raise _refuse(zip_name, info.filename, f"cannot be read: {exc}") from None
    return skipped
