"""Exceptions raised by the fcm-emu client and launcher."""

from __future__ import annotations

import json
from typing import Any, Optional

__all__ = ["FcmEmuError", "EmulatorNotReady", "BinaryNotFound", "UntrustedEmulator"]


class FcmEmuError(Exception):
    """A control API call failed.

    Attributes:
        status: the HTTP status of the answer, or ``None`` when no answer came (connection refused,
            timeout).
        code: the ``error.code`` of the emulator's error JSON (usually the HTTP status again).
        reason: the ``error.status`` of the error JSON, Google's canonical name such as
            ``"NOT_FOUND"`` or ``"INVALID_ARGUMENT"``.
        message: the ``error.message`` of the error JSON, or a description of what went wrong.
        field: the ``error.field`` naming the offending request field, when the emulator gave one.
        text: the raw body of the answer (empty when there was none).
        method, url: the request that failed.
    """

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        code: Optional[int] = None,
        reason: Optional[str] = None,
        field: Optional[str] = None,
        text: str = "",
        method: str = "",
        url: str = "",
    ) -> None:
        self.message = message
        self.status = status
        self.code = code
        self.reason = reason
        self.field = field
        self.text = text
        self.method = method
        self.url = url
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.method} {self.url}".strip()
        head = f"{self.status} {self.reason}" if self.status is not None and self.reason else (
            str(self.status) if self.status is not None else "no answer")
        text = f"{where}: {head}: {self.message}" if where else f"{head}: {self.message}"
        if self.field:
            text += f" (field {self.field!r})"
        return text

    @classmethod
    def from_response(cls, status: int, body: bytes, *, method: str, url: str) -> "FcmEmuError":
        """Builds the exception from an error answer, reading the emulator's ``{"error": {...}}``."""
        text = body.decode("utf-8", "replace")
        error: Any = None
        try:
            error = json.loads(text).get("error")
        except (ValueError, AttributeError):
            error = None
        if isinstance(error, dict):
            code = error.get("code")
            return cls(
                str(error.get("message", "")) or text.strip() or f"HTTP {status}",
                status=status,
                code=code if isinstance(code, int) else None,
                reason=error.get("status") if isinstance(error.get("status"), str) else None,
                field=error.get("field") if isinstance(error.get("field"), str) else None,
                text=text,
                method=method,
                url=url,
            )
        return cls(text.strip()[:500] or f"HTTP {status}", status=status, text=text, method=method, url=url)


class EmulatorNotReady(RuntimeError):
    """The emulator process exited, or did not write its ready file in time.

    ``log_tail`` holds the last lines of its log, which usually say why.
    """

    def __init__(self, message: str, *, log_path: Optional[str] = None, log_tail: str = "") -> None:
        self.log_path = log_path
        self.log_tail = log_tail
        text = message
        if log_path:
            text += f"\nlog: {log_path}"
        if log_tail:
            text += "\n--- last lines of the log ---\n" + log_tail
        super().__init__(text)


class BinaryNotFound(FileNotFoundError):
    """No fcm-emu binary was found (explicit path, ``FCM_EMU_BIN``, the wheel's bundled copy, PATH)."""


class UntrustedEmulator(FcmEmuError):
    """Refused before anything was sent or trusted: the way to an emulator on another machine is not
    secure enough for what was asked (sending the control token over plain HTTP, taking its CA
    certificate from a plain HTTP answer). The message names the fix."""

    def __str__(self) -> str:
        return self.message
