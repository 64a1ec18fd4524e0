package transcode_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hivegate/hivegate/server/transcode"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func TestMarshal(t *testing.T) {
	t.Parallel()
	fd, _ := testSchema(t)
	testCases := []struct {
		name string
		msg  string
		in   string // protojson of the message
		want string // exact hived JSON
	}{
		{
			name: "implicit scalars always written, unset presence fields omitted, field-number order",
			msg:  "Thing",
			in:   `{}`,
			want: `{"id":0,"name":"","votes":0,"small":0,"count":0,"flag":false,"auths":[],"from":"",` +
				`"nums":[],"tally":{},"raw":"","ratio":0,"big":0,"values":[]}`,
		},
		{
			name: "every field kind",
			msg:  "Thing",
			in: `{"id":"7","name":"alice","votes":"-12","small":-5,"count":42,"flag":true,
				"created":"2016-03-24T16:05:00Z","color":"COLOR_DARK_RED",
				"auths":[{"account":"bob","weight":1}],"renamed":"x","memo":"","extra":{"b":[1,"b",null,true],"a":1.5},
				"nums":["1","-3"],"sub":{"a":"z"},"tally":{"k":"5","a":"9007199254740992"},"raw":"AP8=","ratio":0.000001,
				"meta":{},"optColor":"COLOR_BLUE","big":"18446744073709551615","values":[null,"x"]}`,
			want: `{"id":7,"name":"alice","votes":-12,"small":-5,"count":42,"flag":true,` +
				`"created":"2016-03-24T16:05:00","color":"dark_red","auths":[["bob",1]],"from":"x","memo":"",` +
				`"extra":{"a":1.5,"b":[1,"b",null,true]},"nums":[1,-3],"sub":{"a":"z"},` +
				`"tally":{"a":"9007199254740992","k":5},"raw":"00ff","ratio":0.000001,"meta":{},` +
				`"opt_color":"azure","big":"18446744073709551615","values":[null,"x"]}`,
		},
		{
			name: "64-bit integers become strings beyond 2^53-1",
			msg:  "Thing",
			in:   `{"id":"9007199254740991","votes":"-9007199254740992","big":"9007199254740992","nums":["9007199254740991","-9007199254740991","-9223372036854775808"]}`,
			want: `{"id":9007199254740991,"name":"","votes":"-9007199254740992","small":0,"count":0,"flag":false,` +
				`"auths":[],"from":"","nums":[9007199254740991,-9007199254740991,"-9223372036854775808"],"tally":{},` +
				`"raw":"","ratio":0,"big":"9007199254740992","values":[]}`,
		},
		{
			name: "hived maximum time and truncated nanos",
			msg:  "Cursor",
			in:   `{"time":"1969-12-31T23:59:59.999Z"}`,
			want: `["1969-12-31T23:59:59"]`,
		},
		{
			name: "tuple drops trailing unset optionals",
			msg:  "Cursor",
			in:   `{"time":"2020-02-29T23:00:01Z","account":"alice"}`,
			want: `["2020-02-29T23:00:01","alice"]`,
		},
		{
			name: "tuple writes null for an unset field before a set one",
			msg:  "Cursor",
			in:   `{"time":"1970-01-01T00:00:00Z","id":"5"}`,
			want: `["1970-01-01T00:00:00",null,5]`,
		},
		{
			name: "empty tuple",
			msg:  "Cursor",
			in:   `{}`,
			want: `[]`,
		},
		{
			name: "tuple request with implicit fields",
			msg:  "GetThingsRequest",
			in:   `{"account":"alice","limit":10,"high":"7"}`,
			want: `["alice",0,10,null,7]`,
		},
		{
			name: "bare oneof writes the set case",
			msg:  "ListThingsRequest",
			in:   `{"limit":10,"order":"LIST_THINGS_ORDER_BY_NAME","start":{"byName":{"name":"alice"}}}`,
			want: `{"limit":10,"order":"by_name","start":"alice"}`,
		},
		{
			name: "bare oneof tuple case",
			msg:  "ListThingsRequest",
			in:   `{"limit":1,"order":"LIST_THINGS_ORDER_BY_PAIR","start":{"byPair":{"account":"a","weight":2}},"flag":true}`,
			want: `{"limit":1,"order":"by_pair","start":["a",2],"flag":true}`,
		},
		{
			name: "unspecified enum and empty oneof are omitted",
			msg:  "ListThingsRequest",
			in:   `{"limit":5,"start":{}}`,
			want: `{"limit":5}`,
		},
		{
			name: "next_start is not written",
			msg:  "ListThingsResponse",
			in:   `{"things":[{"id":"1","name":"a"}],"nextStart":{"byName":{"name":"a"}}}`,
			want: `{"things":[{"id":1,"name":"a","votes":0,"small":0,"count":0,"flag":false,"auths":[],"from":"",` +
				`"nums":[],"tally":{},"raw":"","ratio":0,"big":0,"values":[]}]}`,
		},
		{
			name: "bare repeated result",
			msg:  "GetThingsResponse",
			in:   `{}`,
			want: `[]`,
		},
		{
			name: "top-level bare with nothing set",
			msg:  "Start",
			in:   `{}`,
			want: `null`,
		},
		{
			name: "top-level bare single field",
			msg:  "Name",
			in:   `{"name":"bob"}`,
			want: `"bob"`,
		},
		{
			name: "unknown enum number",
			msg:  "Thing",
			in:   `{"color":7,"optColor":"COLOR_UNSPECIFIED"}`,
			want: `{"id":0,"name":"","votes":0,"small":0,"count":0,"flag":false,"color":7,"auths":[],"from":"",` +
				`"nums":[],"tally":{},"raw":"","ratio":0,"big":0,"values":[]}`,
		},
		{
			name: "Value numbers like encoding/json",
			msg:  "Thing",
			in:   `{"values":[1e21,1e-7,123456789012345,-0.5,1e20]}`,
			want: `{"id":0,"name":"","votes":0,"small":0,"count":0,"flag":false,"auths":[],"from":"",` +
				`"nums":[],"tally":{},"raw":"","ratio":0,"big":0,"values":[1e+21,1e-7,123456789012345,-0.5,100000000000000000000]}`,
		},
		{
			name: "recursive message",
			msg:  "Node",
			in:   `{"name":"a","children":[{"name":"b"}]}`,
			want: `{"name":"a","children":[{"name":"b","children":[]}]}`,
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newMsg(t, fd, tc.msg)
			fromProtoJSON(t, m, tc.in)
			got, err := transcode.Marshal(m)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("Marshal:\n got %s\nwant %s", got, tc.want)
			}
			params, err := transcode.MarshalParams(m)
			if err != nil || !bytes.Equal(params, got) {
				t.Errorf("MarshalParams = %s, %v; want Marshal's output", params, err)
			}
		})
	}
}

// TestMarshalStringEscaping checks that strings are escaped exactly as
// encoding/json does with SetEscapeHTML(false).
func TestMarshalStringEscaping(t *testing.T) {
	t.Parallel()
	fd, _ := testSchema(t)
	inputs := []string{
		"",
		"plain ascii",
		`<script>a && b</script>`,
		"quote \" backslash \\ slash /",
		"\b\f\n\r\t\x00\x01\x1f\x7f",
		"unicode é 😀 \u2028 \u2029 \ufeff",
		"invalid \xff\xfe utf8 \xc3",
		"json {\"profile\": {\"name\": \"x\"}}",
	}
	for _, s := range inputs {
		m := newMsg(t, fd, "Sub")
		m.Set(m.Descriptor().Fields().ByName("a"), protoValueOfString(s))
		got, err := transcode.Marshal(m)
		if err != nil {
			t.Fatalf("Marshal(%q): %v", s, err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]string{"a": s}); err != nil {
			t.Fatal(err)
		}
		if string(got) != string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Errorf("Marshal(%q) = %s, want %s", s, got, want.Bytes())
		}
	}
}

func TestMarshalErrors(t *testing.T) {
	t.Parallel()
	fd, _ := testSchema(t)
	t.Run("year beyond 9999", func(t *testing.T) {
		t.Parallel()
		m := newMsg(t, fd, "ListThingsResponse")
		fromProtoJSON(t, m, `{"things":[{},{"created":"9999-12-31T23:59:59Z"}]}`)
		things := m.Get(m.Descriptor().Fields().ByName("things")).List()
		created := things.Get(1).Message().Get(things.Get(1).Message().Descriptor().Fields().ByName("created")).Message()
		created.Set(created.Descriptor().Fields().ByName("seconds"), protoreflect.ValueOfInt64(253402300800))
		_, err := transcode.Marshal(m)
		var te *transcode.Error
		want := "things[1].created: timestamp 253402300800 is outside years 0000..9999"
		if !errors.As(err, &te) || err.Error() != want || te.Path != "things[1].created" {
			t.Fatalf("Marshal error = %v, want %q", err, want)
		}
	})
	t.Run("bad bare schema", func(t *testing.T) {
		t.Parallel()
		m := newMsg(t, fd, "BadBare")
		_, err := transcode.Marshal(m)
		want := "schema: test.v1.BadBare is JSON_SHAPE_BARE but has neither exactly one field nor one oneof"
		if err == nil || err.Error() != want {
			t.Fatalf("Marshal error = %v, want %q", err, want)
		}
	})
}
