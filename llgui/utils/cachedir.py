"""The cache folder of llgui: $LLGUI_CACHE_DIR, else the platform's cache folder + llgui.

One definition for the statistics cache (`llgui.core.mt.stats_cache`) and the campaign cell
cache (`llgui.campaign.cache`, in `campaign/` below it). `cache_root()` raises ValueError with
the reason when the setting cannot be used: a `~user` that does not expand, a path that
exists and is not a folder (a file, /dev/null), a NUL character.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

FOLDER_VARIABLES = ("LLGUI_CACHE_DIR", "XDG_CACHE_HOME", "LOCALAPPDATA")


def _folder(name: str, value: str) -> Path:
    if "\x00" in value:
        raise ValueError(f"{name} holds a NUL character")
    try:
        path = Path(value).expanduser()
    except RuntimeError:
        raise ValueError(f"{name}={value[:60]!r}: cannot expand '~' (no such user or no "
                         "home folder)") from None
    try:
        if path.exists() and not path.is_dir():
            raise ValueError(f"{name}={value[:60]!r} is not a folder")
    except OSError as exc:
        raise ValueError(f"{name}={value[:60]!r}: {exc.strerror or exc}") from None
    return path


def _home() -> Path:
    try:
        return Path.home()
    except RuntimeError:
        raise ValueError("no home folder to hold the cache: set LLGUI_CACHE_DIR") from None


def cache_root() -> Path:
    """The cache folder (see the module docstring)."""
    configured = os.environ.get("LLGUI_CACHE_DIR")
    if configured:
        return _folder("LLGUI_CACHE_DIR", configured)
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        base = _folder("LOCALAPPDATA", local) if local else _home() / "AppData" / "Local"
        return base / "llgui" / "Cache"
    if sys.platform == "darwin":
        return _home() / "Library" / "Caches" / "llgui"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = _folder("XDG_CACHE_HOME", xdg) if xdg else _home() / ".cache"
    if base.exists() and not base.is_dir():
        raise ValueError(f"{base} is not a folder")
    return base / "llgui"
