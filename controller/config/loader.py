"""Turn parsed TOML into typed, frozen dataclasses, refusing unknown keys and wrong types.

Every error names the dotted key (``clock.delay_s``) so a tournament director can fix the file
without reading code. Sections are ordinary dataclasses with defaults, so a table runs with no
file at all; a dataclass may check its own values in ``__post_init__`` by raising ConfigError.
"""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from engine.errors import ConfigError

T = TypeVar("T")

_TYPE_NAMES: dict[type, str] = {
    bool: "true or false",
    int: "a whole number",
    float: "a number",
    str: "a string",
}


def load_toml_file(cls: type[T], path: str | Path) -> T:
    """Read a TOML file and build ``cls`` from it; syntax errors name the file and line."""
    file = Path(path)
    try:
        # utf-8-sig: a byte order mark, which some Windows editors write, is no TOML error
        data = tomllib.loads(file.read_text(encoding="utf-8-sig"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{file}: not UTF-8 text") from None
    return build(cls, data)


def build(cls: type[T], data: Mapping[str, Any], prefix: str = "") -> T:
    """Build dataclass ``cls`` from a mapping, validating every key and value against the hints."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    if not isinstance(data, Mapping):
        raise ConfigError(f"{prefix or 'configuration'}: expected a table, got {_describe(data)}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        known = ", ".join(sorted(fields)) or "none"
        raise ConfigError(f"unknown key {_join(prefix, unknown[0])!r} (known here: {known})")
    values = {name: _convert(hints[name], data[name], _join(prefix, name)) for name in data}
    try:
        return cls(**values)
    except ConfigError:
        raise
    except TypeError as exc:  # a required field without a default was not given
        raise ConfigError(f"{prefix or 'configuration'}: {exc}") from None


def _convert(hint: Any, value: Any, key: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return build(hint, value, key)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for option in (a for a in args if a is not type(None)):
            try:
                return _convert(option, value, key)
            except ConfigError as exc:
                errors.append(str(exc))
        if len(errors) == 1:
            raise ConfigError(errors[0])
        raise ConfigError(f"{key}: {_describe(value)} fits none of its types")
    if origin is typing.Literal:
        if value in args and type(value) in {type(a) for a in args}:
            return value
        choices = ", ".join(repr(a) for a in args)
        raise ConfigError(f"{key}: must be one of {choices}, got {value!r}")
    if origin in (tuple, list):
        if not isinstance(value, list):
            raise ConfigError(f"{key}: expected a list, got {_describe(value)}")
        if origin is tuple and args and args[-1] is not Ellipsis:
            if len(value) != len(args):
                raise ConfigError(f"{key}: expected {len(args)} items, got {len(value)}")
            pairs = enumerate(zip(args, value, strict=True))
            items = [_convert(a, v, f"{key}[{i}]") for i, (a, v) in pairs]
        else:
            item = args[0] if args else Any
            items = [_convert(item, v, f"{key}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if not isinstance(value, Mapping):
            raise ConfigError(f"{key}: expected a table, got {_describe(value)}")
        item = args[1] if args else Any
        return {str(k): _convert(item, v, _join(key, str(k))) for k, v in value.items()}
    if hint is Any:
        return value
    if hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    elif hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif hint in (bool, str):
        if isinstance(value, hint):
            return value
    else:
        raise TypeError(f"{key}: unsupported configuration type {hint!r}")
    raise ConfigError(f"{key}: expected {_TYPE_NAMES[hint]}, got {_describe(value)}")


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _describe(value: Any) -> str:
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return repr(value)
