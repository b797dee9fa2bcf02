"""Where two encounters first differ, named by path: the kit's check and its scenarios
say which value does not survive saving and loading (issue 38)."""

from __future__ import annotations


def first_difference(a: object, b: object, path: str = "") -> tuple[str, object, object] | None:
    """Where two encounters first differ: (the path, as ``tokens[ana].values['kit']``, the
    value before and after), or None; a list that comes back a tuple differs."""
    if type(a) is not type(b):
        return (path or "the encounter", a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            step = f"{path}[{key}]" if path.endswith("tokens") else f"{path}[{key!r}]"
            if key not in a or key not in b:
                return (step, a.get(key), b.get(key))
            found = first_difference(a[key], b[key], step)
            if found:
                return found
        return None
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        if len(a) != len(b):
            return (path, a, b)
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    if hasattr(a, "__struct_fields__"):
        for name in a.__struct_fields__:
            found = first_difference(getattr(a, name), getattr(b, name),
                                     f"{path}.{name}" if path else name)
            if found:
                return found
        return None
    return None if a == b else (path, a, b)
