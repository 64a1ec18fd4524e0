package server

import (
	"encoding/json"
	"fmt"
)

// spliceElement sets element i of the JSON array params to value, padding
// with null when the array is shorter: the first_page JSON of a positional
// start (condenser_api list_proposals' []) that no cursor message writes.
func spliceElement(params json.RawMessage, i int, value json.RawMessage) (json.RawMessage, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(params, &elems); err != nil {
		return nil, fmt.Errorf("positional params %s: %w", params, err)
	}
	for len(elems) <= i {
		elems = append(elems, json.RawMessage("null"))
	}
	elems[i] = value
	return json.Marshal(elems)
}
