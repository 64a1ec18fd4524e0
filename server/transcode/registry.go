package transcode

import (
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Method is one typed RPC that translates to a JSON-RPC method.
type Method struct {
	// JSONRPC is the JSON-RPC method name from (hivegate.v1.jsonrpc_method),
	// for example "database_api.list_accounts".
	JSONRPC string
	// Procedure is the RPC's Connect/gRPC path, for example
	// "/hive.database_api.v1.DatabaseApiService/ListAccounts".
	Procedure string
	// Desc is the RPC's descriptor.
	Desc protoreflect.MethodDescriptor
	// Request and Response are the message types of the RPC: generated types
	// when they are linked into the binary, dynamicpb types otherwise.
	Request  protoreflect.MessageType
	Response protoreflect.MessageType
}

// Registry maps JSON-RPC method names and RPC procedures to typed methods. It
// is built once and is read-only afterwards, so it is safe for concurrent use.
type Registry struct {
	byJSONRPC   map[string]*Method
	byProcedure map[string]*Method
	methods     []*Method
}

// NewRegistry scans every service in files for RPCs carrying the
// (hivegate.v1.jsonrpc_method) option. Message types are looked up in types
// (usually protoregistry.GlobalTypes) when their descriptor is the one in
// files, and are dynamicpb types otherwise; types may be nil. Two RPCs
// claiming the same JSON-RPC method are an error.
func NewRegistry(files *protoregistry.Files, types protoregistry.MessageTypeResolver) (*Registry, error) {
	r := &Registry{byJSONRPC: map[string]*Method{}, byProcedure: map[string]*Method{}}
	var err error
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		svcs := fd.Services()
		for i := range svcs.Len() {
			svc := svcs.Get(i)
			mds := svc.Methods()
			for j := range mds.Len() {
				md := mds.Get(j)
				name := JSONRPCMethod(md)
				if name == "" {
					continue
				}
				if prev, dup := r.byJSONRPC[name]; dup {
					err = fmt.Errorf("transcode: %s and %s both map to JSON-RPC method %q",
						prev.Desc.FullName(), md.FullName(), name)
					return false
				}
				m := &Method{
					JSONRPC:   name,
					Procedure: "/" + string(svc.FullName()) + "/" + string(md.Name()),
					Desc:      md,
					Request:   messageType(types, md.Input()),
					Response:  messageType(types, md.Output()),
				}
				r.byJSONRPC[name] = m
				r.byProcedure[m.Procedure] = m
				r.methods = append(r.methods, m)
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(r.methods, func(a, b *Method) int { return strings.Compare(a.JSONRPC, b.JSONRPC) })
	return r, nil
}

// messageType resolves md to a Go message type when one with exactly this
// descriptor is registered, and to a dynamic type otherwise.
func messageType(types protoregistry.MessageTypeResolver, md protoreflect.MessageDescriptor) protoreflect.MessageType {
	if types != nil {
		if mt, err := types.FindMessageByName(md.FullName()); err == nil && mt.Descriptor() == md {
			return mt
		}
	}
	return dynamicpb.NewMessageType(md)
}

// Lookup returns the typed method for a JSON-RPC method name such as
// "database_api.list_accounts".
func (r *Registry) Lookup(jsonrpcMethod string) (*Method, bool) {
	m, ok := r.byJSONRPC[jsonrpcMethod]
	return m, ok
}

// LookupProcedure returns the typed method for an RPC procedure such as
// "/hive.database_api.v1.DatabaseApiService/ListAccounts".
func (r *Registry) LookupProcedure(procedure string) (*Method, bool) {
	m, ok := r.byProcedure[procedure]
	return m, ok
}

// Methods returns every typed method, sorted by JSON-RPC name, in a new slice.
func (r *Registry) Methods() []*Method {
	return slices.Clone(r.methods)
}
