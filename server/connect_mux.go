package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/gen/hivegate/v1/hivegatev1connect"

	// Every generated package registers its descriptors, so that the
	// transcode registry built from protoregistry.GlobalFiles holds every
	// typed RPC and its generated message types.
	_ "github.com/hivegate/hivegate/server/schema" // every generated API package
)

// defaultConnectReadMaxBytes bounds a Connect request message when the
// config sets no body limit.
const defaultConnectReadMaxBytes = 1 << 20

// compressMinBytes is the smallest response connect compresses (when the
// client accepts gzip); smaller ones are not worth the CPU.
const compressMinBytes = 1 << 10

// Options configure the Protobuf services Mount adds.
type Options struct {
	// Logger receives the services' logs; nil discards them.
	Logger *slog.Logger
	// ReadMaxBytes bounds a request message; <= 0 means
	// defaultConnectReadMaxBytes (1 MiB).
	ReadMaxBytes int64
	// Hooks are given to the dispatcher with every typed and JsonRpcService
	// call: the token policy and the metrics (dispatch.Hooks); nil adds
	// nothing. The frontend a call came in by (connect, grpc, grpcweb) is
	// the request's, which an Observe hook reads from its context.
	Hooks *dispatch.Hooks
	// Drift counts the keys of a node's answers the typed messages do not
	// know (typed_drift.go); nil: they are only logged.
	Drift DriftObserver
	// HandlerOptions are added to every service's handler: the tracing
	// interceptor (otelconnect) and the auth token policy, for instance.
	HandlerOptions []connect.HandlerOption
	// Services are more services mounted with the same options and listed
	// by reflection and health (hivegate.auth.v1.AuthService).
	Services []Service
}

// Service is a Connect service mounted beside the typed API: Handler is
// the generated New...Handler of its connect package, bound to an
// implementation.
type Service struct {
	Name    string
	Handler func(...connect.HandlerOption) (string, http.Handler)
}

// Mount adds the Protobuf services to mux, calling d: one entry per typed
// service (every RPC of the API, served generically), the generic
// JsonRpcService, opts.Services, gRPC health checking and server
// reflection (v1 and v1alpha). Each speaks Connect (JSON and binary), gRPC
// and gRPC-Web. It returns the names of the services it mounted.
func (a *API) Mount(mux *http.ServeMux, d *dispatch.Dispatcher, co Options) []string {
	readMax := co.ReadMaxBytes
	if readMax <= 0 {
		readMax = defaultConnectReadMaxBytes
	}
	log := co.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	opts := append([]connect.HandlerOption{
		connect.WithReadMaxBytes(int(readMax)),
		connect.WithCompressMinBytes(compressMinBytes),
		quietGzipOption(),
	}, cachingCodecs()...)
	opts = append(opts, co.HandlerOptions...)
	ts := &typedServer{d: d, log: log, hooks: co.Hooks, drift: newDriftLog(log, co.Drift)}
	byService := map[string]map[string]http.Handler{}
	for _, tm := range a.methods {
		svc := string(tm.Desc.Parent().FullName())
		if byService[svc] == nil {
			byService[svc] = map[string]http.Handler{}
		}
		byService[svc][tm.Procedure] = ts.handler(tm, opts...)
	}
	var services []string
	for svc, handlers := range byService {
		mux.Handle("/"+svc+"/", connectGET(serviceHandler(handlers), opts...))
		services = append(services, svc)
	}
	path, h := hivegatev1connect.NewJsonRpcServiceHandler(&jsonRPCService{d: d, log: log, hooks: co.Hooks}, opts...)
	mux.Handle(path, connectGET(h, opts...))
	services = append(services, hivegatev1connect.JsonRpcServiceName)
	for _, cs := range co.Services {
		path, h := cs.Handler(opts...)
		mux.Handle(path, connectGET(h, opts...))
		services = append(services, cs.Name)
	}
	slices.Sort(services)

	// The health service answers for itself too, but is not listed by
	// reflection: grpchealth registers its descriptors under a private
	// package name, so reflection could not describe it (health clients
	// have its schema built in).
	checked := append(slices.Clone(services), grpchealth.HealthV1ServiceName)
	slices.Sort(checked)
	mux.Handle(grpchealth.NewHandler(&healthChecker{d: d, services: checked}, opts...))
	reflector := grpcreflect.NewStaticReflector(services...)
	mux.Handle(grpcreflect.NewHandlerV1(reflector, opts...))
	mux.Handle(grpcreflect.NewHandlerV1Alpha(reflector, opts...))
	return services
}

// serviceHandler routes one service's procedures by exact path.
func serviceHandler(handlers map[string]http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := handlers[r.URL.Path]; ok {
			h.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	})
}

// healthChecker answers gRPC health checks: SERVING while every backend
// has a node in service (the rule of GET /: up after a probe and judged
// fit), NOT_SERVING otherwise, for the whole server ("") and for every
// mounted service alike.
type healthChecker struct {
	d        *dispatch.Dispatcher
	services []string // sorted
}

// Check implements grpchealth.Checker.
func (c *healthChecker) Check(_ context.Context, req *grpchealth.CheckRequest) (*grpchealth.CheckResponse, error) {
	if req.Service != "" {
		if _, found := slices.BinarySearch(c.services, req.Service); !found {
			return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("unknown service %s", req.Service))
		}
	}
	if c.d.Serving() {
		return &grpchealth.CheckResponse{Status: grpchealth.StatusServing}, nil
	}
	return &grpchealth.CheckResponse{Status: grpchealth.StatusNotServing}, nil
}
