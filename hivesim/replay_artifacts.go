package hivesim

import (
	"bytes"
	"encoding/json"
)

// recordedArtifacts are recorded results that no backend returns: the
// pattern tests compared them loosely, so the file holds a placeholder.
var recordedArtifacts = map[string]string{
	// hived's database_api.verify_authority answers {"valid": true} or an
	// error; the pattern file of the failing case holds a bare false.
	"database_api_patterns/verify_authority/false": "a bare false where hived answers {\"valid\": ...} or an error",
}

// RecordedResult returns the result a backend really returned for a
// recorded case whose result member is a recording artifact, and why a
// case has no usable result. A few recordings hold a whole JSON-RPC
// response envelope ({"id", "jsonrpc", "result"|"error"}) as the result:
// the inner result is returned (ok), or for an inner error the reason. A
// result listed as a placeholder returns its reason. Any other result is
// returned unchanged.
func RecordedResult(caseName string, result json.RawMessage) (inner json.RawMessage, reason string) {
	if why, ok := recordedArtifacts[caseName]; ok {
		return nil, "recording artifact: " + why
	}
	trimmed := bytes.TrimSpace(result)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return result, ""
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(trimmed, &env) != nil || len(env) != 3 || env["jsonrpc"] == nil || env["id"] == nil {
		return result, ""
	}
	if r, ok := env["result"]; ok {
		return r, ""
	}
	if _, ok := env["error"]; ok {
		return nil, "recorded error (an envelope inside the result)"
	}
	return result, ""
}
