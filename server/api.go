package server

import (
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/hivegate/hivegate/server/transcode"
)

// API is hivegate's typed API: every typed RPC of the linked schema (see
// server/schema), planned once — its JSON-RPC method, how its request
// becomes params, how a result becomes its response. The schema never
// changes while the process runs, so one API serves every config
// generation (Mount).
type API struct {
	methods     []*typedMethod
	byProcedure map[string]*typedMethod
}

// NewAPI builds the registry of typed RPCs from the linked generated
// packages and plans every one of them.
func NewAPI() (*API, error) {
	reg, err := transcode.NewRegistry(protoregistry.GlobalFiles, protoregistry.GlobalTypes)
	if err != nil {
		return nil, err
	}
	methods, err := planMethods(reg)
	if err != nil {
		return nil, fmt.Errorf("typed API schema: %w", err)
	}
	a := &API{methods: methods, byProcedure: make(map[string]*typedMethod, len(methods))}
	for _, tm := range methods {
		a.byProcedure[tm.Procedure] = tm
	}
	return a, nil
}

// TypedCall returns the JSON-RPC call a typed request becomes: the method
// and the params hivegate sends (and keys the cache with) after validating
// req and filling its defaults, exactly as the Connect handler of procedure
// ("/hive.database_api.v1.DatabaseApiService/ListAccounts") would. req is
// modified in place (defaults filled). A request the handler would reject
// returns the same *connect.Error (invalid_argument naming the field).
func (a *API) TypedCall(procedure string, req proto.Message) (method string, params json.RawMessage, err error) {
	tm, ok := a.byProcedure[procedure]
	if !ok {
		return "", nil, fmt.Errorf("no typed RPC %s", procedure)
	}
	if req.ProtoReflect().Descriptor() != tm.Request.Descriptor() {
		return "", nil, fmt.Errorf("%s takes %s, not %s", procedure, tm.Request.Descriptor().FullName(), req.ProtoReflect().Descriptor().FullName())
	}
	params, _, err = tm.prepare(req.ProtoReflect())
	if err != nil {
		return "", nil, err
	}
	return tm.JSONRPC, params, nil
}
