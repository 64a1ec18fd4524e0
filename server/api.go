package server

import (
	"encoding/json"
	"fmt"
	"reflect"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	hivegatev1 "github.com/hivegate/hivegate/gen/hivegate/v1"
	"github.com/hivegate/hivegate/gen/hivegate/v1/hivegatev1connect"
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

// Resolve names the JSON-RPC call a request of procedure makes, as the
// handlers build it: a typed RPC's method and params, or
// JsonRpcService.Call's. ok is false for a procedure that is not a call
// (reflection, health, another service) and for a request the handler
// refuses itself (invalid_argument). The auth token policy matches calls
// with it.
func (a *API) Resolve(procedure string, msg any) (method string, params json.RawMessage, ok bool) {
	if procedure == hivegatev1connect.JsonRpcServiceCallProcedure {
		req, isCall := msg.(*hivegatev1.CallRequest)
		if !isCall {
			return "", nil, false
		}
		if p := req.GetParams(); p != nil {
			b, err := transcode.Marshal(p)
			if err != nil {
				return "", nil, false // the service refuses it itself
			}
			params = b
		}
		return req.GetMethod(), params, true
	}
	if _, known := a.byProcedure[procedure]; !known {
		return "", nil, false
	}
	m, isMsg := msg.(proto.Message)
	if !isMsg || reflect.ValueOf(m).IsNil() {
		return "", nil, false
	}
	method, params, err := a.TypedCall(procedure, m)
	if err != nil {
		return "", nil, false // invalid_argument from the handler itself
	}
	return method, params, true
}
