package goclient_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httptest"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/hivegate/hivegate/config"
	"github.com/hivegate/hivegate/gateway"
	database_apiv1 "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	"github.com/hivegate/hivegate/gen/hive/database_api/v1/database_apiv1connect"
	"github.com/hivegate/hivegate/hivesim"
)

// Example lists the first accounts by name with a typed client over the
// Connect protocol: five lines against a running gateway.
func Example() {
	url, stop := startGateway() // a simulated Hive node behind an in-process hivegate
	defer stop()

	client := database_apiv1connect.NewDatabaseApiServiceClient(http.DefaultClient, url)
	res, err := client.ListAccounts(context.Background(), connect.NewRequest(&database_apiv1.ListAccountsRequest{
		Limit: proto.Uint32(3), Order: database_apiv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(res.Msg.Accounts), "accounts, first:", res.Msg.Accounts[0].Name)
	// Output: 3 accounts, first: alice
}

// Example_paging walks accounts by name page by page: each response's
// NextStart goes back, unchanged, as the next request's Start; no account
// repeats, and NextStart is nil on the last page.
func Example_paging() {
	url, stop := startGateway()
	defer stop()

	client := database_apiv1connect.NewDatabaseApiServiceClient(http.DefaultClient, url)
	req := &database_apiv1.ListAccountsRequest{Limit: proto.Uint32(3), Order: database_apiv1.ListAccountsOrder_LIST_ACCOUNTS_ORDER_BY_NAME}
	for page := 1; page <= 3; page++ {
		res, err := client.ListAccounts(context.Background(), connect.NewRequest(req))
		if err != nil {
			log.Fatal(err)
		}
		var names []string
		for _, a := range res.Msg.Accounts {
			names = append(names, a.Name)
		}
		fmt.Println("page", page, names)
		if res.Msg.NextStart == nil {
			break // the last page
		}
		req.Start = res.Msg.NextStart
	}
	// Output:
	// page 1 [alice armine309 arvovo.gulo]
	// page 2 [beelkaon beka728 beon]
	// page 3 [beonjo bepearbe.faus bepeon127]
}

// Example_grpc calls the same service with the gRPC protocol, which needs
// HTTP/2: hivegate serves it unencrypted (h2c) on its one port.
func Example_grpc() {
	url, stop := startGateway()
	defer stop()

	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	h2c := &http.Client{Transport: &http.Transport{Protocols: &protocols}}

	client := database_apiv1connect.NewDatabaseApiServiceClient(h2c, url, connect.WithGRPC())
	res, err := client.ListWitnesses(context.Background(), connect.NewRequest(&database_apiv1.ListWitnessesRequest{
		Limit: proto.Uint32(2), Order: database_apiv1.ListWitnessesOrder_LIST_WITNESSES_ORDER_BY_NAME}))
	if err != nil {
		log.Fatal(err)
	}
	for _, w := range res.Msg.Witnesses {
		fmt.Println(w.Owner)
	}
	// Output:
	// beon
	// brionhi
}

// startGateway starts a simulated Hive node (seed 1, the demo's chain) and a
// hivegate in front of it with the embedded default config, served the way
// `hivegate serve` serves it (HTTP/1.1 and h2c). It returns the gateway's URL
// and a function that stops both.
func startGateway() (url string, stop func()) {
	node := httptest.NewServer(hivesim.New(hivesim.Options{Seed: 1}))
	cfg, err := config.Default(node.URL)
	if err != nil {
		log.Fatal(err)
	}
	gw, err := gateway.New(cfg, gateway.Options{Version: "example"})
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gw.Start(ctx)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := gateway.NewHTTPServer(ln.Addr().String(), gw.Handler(), gateway.Timeouts{}, nil)
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() {
		_ = srv.Close()
		cancel()
		gw.Close()
		node.Close()
	}
}
