package transcode_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/hivegate/hivegate/server/transcode"
)

// TestRoundTrip decodes canonical hived JSON and encodes it back, expecting
// the same bytes.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	fd, _ := testSchema(t)
	thing := `{"id":14007,"name":"gtg","votes":"9007199254740993","small":-1,"count":7,"flag":true,` +
		`"created":"2016-06-30T17:22:18","color":"dark_red","auths":[["a",1],["b",65535]],"from":"<b>&amp;</b>",` +
		`"memo":"line\nbreak \"quoted\" \u2028","extra":{"op":["transfer",{"amount":"1.000 HIVE","n":[1,2.5,null,false]}]},` +
		`"nums":["4737195157018077000",39356563895873,214349887,0],"sub":{"a":""},"tally":{"a":1,"b":"-9007199254740992"},` +
		`"raw":"deadbeef","ratio":0.25,"meta":{},"opt_color":"azure","big":"18446744073709551615","values":[null,{"k":[]}]}`
	testCases := []struct {
		name string
		msg  string
		json string
	}{
		{"object with every kind", "Thing", thing},
		{"list response", "ListThingsResponse", `{"things":[` + thing + `,` + thing + `]}`},
		{"empty list response", "ListThingsResponse", `{"things":[]}`},
		{"bare result", "GetThingsResponse", `[` + thing + `]`},
		{"tuple request", "GetThingsRequest", `["alice","18446744073709551615",1000]`},
		{"tuple request with filters", "GetThingsRequest", `["alice",-0,1,null,4]`},
		{"request with bare string start", "ListThingsRequest", `{"limit":10,"order":"by_name","start":"alice"}`},
		{"cursor with maximum time", "Cursor", `["1969-12-31T23:59:59","z",9007199254740991]`},
		{"recursive", "Node", `{"name":"a","children":[{"name":"b","children":[]}]}`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newMsg(t, fd, tc.msg)
			unknown, err := transcode.Unmarshal([]byte(tc.json), m)
			if err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if len(unknown) != 0 {
				t.Errorf("unknown keys %q", unknown)
			}
			out, err := transcode.Marshal(m)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			want := tc.json
			if tc.name == "tuple request with filters" {
				want = `["alice",0,1,null,4]` // -0 is written as 0
			}
			if string(out) != want {
				t.Errorf("round trip:\n got %s\nwant %s", out, want)
			}
		})
	}
}

// TestConcurrentUse shares one fresh Codec between goroutines, so that plan
// building races with use (run with -race).
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	fd, _ := testSchema(t)
	codec := transcode.NewCodec()
	const in = `{"things":[{"id":1,"name":"a","votes":0,"small":0,"count":0,"flag":false,"created":"2020-01-01T00:00:00",` +
		`"auths":[["b",1]],"from":"","nums":[],"tally":{},"raw":"","ratio":0,"big":0,"values":[]}]}`
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			m := newMsg(t, fd, "ListThingsResponse")
			if _, err := codec.Unmarshal([]byte(in), m); err != nil {
				errs <- err
				return
			}
			out, err := codec.Marshal(m)
			if err == nil && string(out) != in {
				err = fmt.Errorf("round trip gave %s", out)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
