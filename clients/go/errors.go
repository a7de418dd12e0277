package fcmemu

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// APIError is a failed control API call. It carries the emulator's own error JSON
// ({"error": {"code", "status", "message", "field"}}).
type APIError struct {
	// Method and URL of the request that failed.
	Method, URL string
	// StatusCode is the HTTP status; 0 when no answer came (refused, timed out).
	StatusCode int
	// Code is error.code of the answer (usually the HTTP status again).
	Code int
	// Status is error.status, Google's canonical name such as "NOT_FOUND" or "INVALID_ARGUMENT".
	Status string
	// Message is error.message, or a description of what went wrong.
	Message string
	// Field names the offending request field, when the emulator gave one.
	Field string
	// Body is the raw answer.
	Body []byte
	// Err is the transport error when no answer came.
	Err error
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fcm-emu: %s %s: ", e.Method, e.URL)
	switch {
	case e.StatusCode == 0:
		b.WriteString("no answer")
	case e.Status != "":
		fmt.Fprintf(&b, "%d %s", e.StatusCode, e.Status)
	default:
		fmt.Fprintf(&b, "%d", e.StatusCode)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, " (field %q)", e.Field)
	}
	return b.String()
}

// Unwrap returns the transport error, if any.
func (e *APIError) Unwrap() error { return e.Err }

// IsNotFound reports whether err is an APIError with HTTP status 404.
func IsNotFound(err error) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode == 404
}

func errorFromResponse(method, url string, status int, body []byte) *APIError {
	e := &APIError{Method: method, URL: url, StatusCode: status, Body: body}
	var answer struct {
		Error *struct {
			Code    int    `json:"code"`
			Status  string `json:"status"`
			Message string `json:"message"`
			Field   string `json:"field"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &answer) == nil && answer.Error != nil {
		e.Code, e.Status, e.Message, e.Field = answer.Error.Code, answer.Error.Status, answer.Error.Message, answer.Error.Field
	}
	if e.Message == "" {
		text := strings.TrimSpace(string(body))
		if len(text) > 500 {
			text = text[:500]
		}
		if text == "" {
			text = fmt.Sprintf("HTTP %d", status)
		}
		e.Message = text
	}
	return e
}

// NotReadyError says that a started emulator exited, or wrote no ready file in time. LogTail
// holds the last lines of its log, which usually say why.
type NotReadyError struct {
	Reason  string
	LogPath string
	LogTail string
}

func (e *NotReadyError) Error() string {
	text := "fcm-emu: " + e.Reason
	if e.LogPath != "" {
		text += "\nlog: " + e.LogPath
	}
	if e.LogTail != "" {
		text += "\n--- last lines of the log ---\n" + e.LogTail
	}
	return text
}
