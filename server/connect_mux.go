package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"connectrpc.com/connect"
	connectcors "connectrpc.com/cors"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"
	"github.com/rs/cors"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/hivegate/hivegate/dispatch"
	"github.com/hivegate/hivegate/gen/hivegate/v1/hivegatev1connect"
	"github.com/hivegate/hivegate/jsonrpc"
	"github.com/hivegate/hivegate/server/transcode"

	// Every generated package registers its descriptors, so that the
	// transcode registry built from protoregistry.GlobalFiles holds every
	// typed RPC and its generated message types.
	_ "github.com/hivegate/hivegate/internal/schema" // every generated API package
)

// defaultConnectReadMaxBytes bounds a Connect request message when the
// config sets no body limit.
const defaultConnectReadMaxBytes = 1 << 20

// compressMinBytes is the smallest response connect compresses (when the
// client accepts gzip); smaller ones are not worth the CPU.
const compressMinBytes = 1 << 10

// connectOptions configure the Protobuf services of one generation.
type connectOptions struct {
	log *slog.Logger
	// readMax bounds a request message; <= 0 means
	// defaultConnectReadMaxBytes.
	readMax int64
	// obs records every typed and JsonRpcService call.
	obs *callObserver
	// tracing, when not nil, adds a span per call (otelconnect).
	tracing *tracing
	// interceptors run around every call (the auth token policy).
	interceptors []connect.Interceptor
	// services are more services mounted with the same options and listed
	// by reflection and health (hive.auth.v1.AuthService).
	services []connectService
}

// connectService is a service mounted besides the typed API.
type connectService struct {
	name    string
	handler func(...connect.HandlerOption) (string, http.Handler)
}

// mountConnect adds the Protobuf services to mux: one entry per typed
// service (every RPC of transcode's registry, served generically), the
// generic JsonRpcService, gRPC health checking and server reflection (v1
// and v1alpha). Each speaks Connect (JSON and binary), gRPC and gRPC-Web.
// It returns the names of the services it mounted.
func mountConnect(mux *http.ServeMux, d *dispatch.Dispatcher, methods []*typedMethod, co connectOptions) []string {
	readMax := co.readMax
	if readMax <= 0 {
		readMax = defaultConnectReadMaxBytes
	}
	opts := append([]connect.HandlerOption{
		connect.WithReadMaxBytes(int(readMax)),
		connect.WithCompressMinBytes(compressMinBytes),
	}, cachingCodecs()...)
	if co.tracing != nil {
		opts = append(opts, co.tracing.handlerOption())
	}
	if len(co.interceptors) > 0 {
		opts = append(opts, connect.WithInterceptors(co.interceptors...))
	}
	ts := &typedServer{d: d, log: co.log, obs: co.obs}
	byService := map[string]map[string]http.Handler{}
	for _, tm := range methods {
		svc := string(tm.Desc.Parent().FullName())
		if byService[svc] == nil {
			byService[svc] = map[string]http.Handler{}
		}
		byService[svc][tm.Procedure] = ts.handler(tm, opts...)
	}
	var services []string
	for svc, handlers := range byService {
		mux.Handle("/"+svc+"/", serviceHandler(handlers))
		services = append(services, svc)
	}
	path, h := hivegatev1connect.NewJsonRpcServiceHandler(&jsonRPCService{d: d, log: co.log, obs: co.obs}, opts...)
	mux.Handle(path, h)
	services = append(services, hivegatev1connect.JsonRpcServiceName)
	for _, cs := range co.services {
		mux.Handle(cs.handler(opts...))
		services = append(services, cs.name)
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

// planTypedAPI builds the registry of typed RPCs from the linked generated
// packages and plans every one of them.
func planTypedAPI() ([]*typedMethod, error) {
	reg, err := transcode.NewRegistry(protoregistry.GlobalFiles, protoregistry.GlobalTypes)
	if err != nil {
		return nil, err
	}
	methods, err := planMethods(reg)
	if err != nil {
		return nil, fmt.Errorf("typed API schema: %w", err)
	}
	return methods, nil
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

// healthChecker answers gRPC health checks: SERVING while at least one
// backend can be reached (the same rule as GET /), NOT_SERVING otherwise,
// for the whole server ("") and for every mounted service alike.
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
	if c.d.Healthy() {
		return &grpchealth.CheckResponse{Status: grpchealth.StatusServing}, nil
	}
	return &grpchealth.CheckResponse{Status: grpchealth.StatusNotServing}, nil
}

// withCORS lets browsers on the allowed origins call every endpoint
// (JSON-RPC, Connect, gRPC-Web). origins defaults to any ("*"). The
// preflight allows connect's and gRPC-Web's request headers, and responses
// expose their status headers plus x-hivegate-cache and x-hivegate-route.
func withCORS(h http.Handler, origins []string) http.Handler {
	if len(origins) == 0 {
		origins = []string{"*"}
	}
	c := cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: connectcors.AllowedMethods(),
		AllowedHeaders: append(connectcors.AllowedHeaders(), "X-Request-Id", "Connect-Accept-Encoding", "Connect-Content-Encoding", "Grpc-Accept-Encoding", "Authorization"),
		ExposedHeaders: append(connectcors.ExposedHeaders(), jsonrpc.HeaderCache, jsonrpc.HeaderRoute, "X-Request-Id", "WWW-Authenticate"),
		MaxAge:         7200,
	})
	return c.Handler(h)
}
