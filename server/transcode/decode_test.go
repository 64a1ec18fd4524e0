package transcode_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hivegate/hivegate/server/transcode"
)

func TestUnmarshal(t *testing.T) {
	t.Parallel()
	fd, _ := testSchema(t)
	testCases := []struct {
		name        string
		msg         string
		in          string
		want        string   // protojson of the decoded message
		wantUnknown []string // nil means none
	}{
		{
			name: "every field kind",
			msg:  "Thing",
			in: `{"id":7,"name":"alice","votes":"9007199254740993","small":-5,"count":"42","flag":true,
				"created":"2016-03-24T16:05:00","color":"dark_red","auths":[["bob",1],["carol",2]],
				"from":"x","memo":"hi","extra":{"a":[1,"b",null,true]},"nums":[1,"2",-3],"sub":{"a":"z"},
				"tally":{"k":5},"raw":"00ff","ratio":0.5,"meta":{"k":"v"},"opt_color":"azure",
				"big":"18446744073709551615","values":[null,1,"s"]}`,
			want: `{"id":"7","name":"alice","votes":"9007199254740993","small":-5,"count":42,"flag":true,
				"created":"2016-03-24T16:05:00Z","color":"COLOR_DARK_RED",
				"auths":[{"account":"bob","weight":1},{"account":"carol","weight":2}],
				"renamed":"x","memo":"hi","extra":{"a":[1,"b",null,true]},"nums":["1","2","-3"],"sub":{"a":"z"},
				"tally":{"k":"5"},"raw":"AP8=","ratio":0.5,"meta":{"k":"v"},"optColor":"COLOR_BLUE",
				"big":"18446744073709551615","values":[null,1,"s"]}`,
		},
		{
			name: "time with trailing Z and hived maximum time: a tuple element (a position) keeps it",
			msg:  "Cursor",
			in:   `["1969-12-31T23:59:59Z"]`,
			want: `{"time":"1969-12-31T23:59:59Z"}`,
		},
		{
			name: "epoch",
			msg:  "Cursor",
			in:   `["1970-01-01T00:00:00"]`,
			want: `{"time":"1970-01-01T00:00:00Z"}`,
		},
		{
			name: "hived's maximum time in an object member is an unset time",
			msg:  "Thing",
			in:   `{"id":1,"created":"1969-12-31T23:59:59"}`,
			want: `{"id":"1"}`,
		},
		{
			name: "the epoch in an object member is an unset time",
			msg:  "Thing",
			in:   `{"id":1,"created":"1970-01-01T00:00:00"}`,
			want: `{"id":"1"}`,
		},
		{
			name: "never-times in hivemind's and zoned spellings are unset too",
			msg:  "ListThingsResponse",
			in:   `{"things":[{"created":"1970-01-01 00:00:00"},{"created":"1969-12-31T23:59:59Z"}]}`,
			want: `{"things":[{},{}]}`,
		},
		{
			name: "a second after the epoch is a real time",
			msg:  "Thing",
			in:   `{"created":"1970-01-01T00:00:01"}`,
			want: `{"created":"1970-01-01T00:00:01Z"}`,
		},
		{
			name: "null leaves fields unset but a Value null",
			msg:  "Thing",
			in:   `{"id":null,"created":null,"memo":null,"auths":null,"sub":null,"extra":null,"opt_color":null}`,
			want: `{"extra":null}`,
		},
		{
			name:        "unknown keys are reported with their paths",
			msg:         "ListThingsResponse",
			in:          `{"things":[{"id":1},{"id":2,"new_field":{"x":[1,2]},"sub":{"b":1}}],"more":true}`,
			want:        `{"things":[{"id":"1"},{"id":"2","sub":{}}]}`,
			wantUnknown: []string{"things[1].new_field", "things[1].sub.b", "more"},
		},
		{
			name:        "next_start of a response is not hived JSON",
			msg:         "ListThingsResponse",
			in:          `{"things":[],"next_start":"alice"}`,
			want:        `{}`,
			wantUnknown: []string{"next_start"},
		},
		{
			name: "tuple with fewer elements",
			msg:  "Cursor",
			in:   `["2020-01-01T00:00:00","alice"]`,
			want: `{"time":"2020-01-01T00:00:00Z","account":"alice"}`,
		},
		{
			name: "empty tuple",
			msg:  "Cursor",
			in:   ` [ ] `,
			want: `{}`,
		},
		{
			name:        "tuple with extra elements",
			msg:         "Pair",
			in:          `["a",1,{"x":1},2]`,
			want:        `{"account":"a","weight":1}`,
			wantUnknown: []string{"[2]", "[3]"},
		},
		{
			name: "bare single field",
			msg:  "Name",
			in:   `"alice"`,
			want: `{"name":"alice"}`,
		},
		{
			name: "bare oneof chosen by JSON kind",
			msg:  "ListThingsRequest",
			in:   `{"limit":10,"order":"by_name","start":"alice","flag":false}`,
			want: `{"limit":10,"order":"LIST_THINGS_ORDER_BY_NAME","start":{"byName":{"name":"alice"}},"flag":false}`,
		},
		{
			name: "bare repeated result",
			msg:  "GetThingsResponse",
			in:   `[{"id":1},{"id":"2"}]`,
			want: `{"things":[{"id":"1"},{"id":"2"}]}`,
		},
		{
			name: "tuple request",
			msg:  "GetThingsRequest",
			in:   `["alice","18446744073709551615",1000,null,7]`,
			want: `{"account":"alice","start":"18446744073709551615","limit":1000,"high":"7"}`,
		},
		{
			name: "enum from integer",
			msg:  "Thing",
			in:   `{"color":2,"opt_color":"0"}`,
			want: `{"color":"COLOR_BLUE","optColor":"COLOR_UNSPECIFIED"}`,
		},
		{
			name: "integer edges",
			msg:  "Thing",
			in:   `{"votes":-9223372036854775808,"small":"-2147483648","count":4294967295,"id":"0","big":-0}`,
			want: `{"votes":"-9223372036854775808","small":-2147483648,"count":4294967295}`,
		},
		{
			name: "escapes and invalid UTF-8",
			msg:  "Sub",
			in:   "{\"a\":\"x\\u00e9\\n\\ud83d\\ude00\\ud800y\\/\xff<>&\"}",
			want: `{"a":"xé\n😀\ufffdy/\ufffd<>&"}`,
		},
		{
			name: "escaped key",
			msg:  "Sub",
			in:   `{"\u0061":"z"}`,
			want: `{"a":"z"}`,
		},
		{
			name: "repeated key merges like protobuf",
			msg:  "Thing",
			in:   `{"nums":[1,2],"nums":[3],"sub":{"a":"x"},"sub":{},"name":"a","name":"b"}`,
			want: `{"nums":["1","2","3"],"sub":{"a":"x"},"name":"b"}`,
		},
		{
			name: "recursive message",
			msg:  "Node",
			in:   `{"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]}`,
			want: `{"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]}`,
		},
		{
			name: "top-level null",
			msg:  "Thing",
			in:   `null`,
			want: `{}`,
		},
		{
			name: "Value numbers beyond 2^53 keep their digits",
			msg:  "Thing",
			in:   `{"extra":[9007199254740993,9007199254740992,1e400,-12345678901234567890123,1.25]}`,
			want: `{"extra":["9007199254740993",9007199254740992,"1e400","-12345678901234567890123",1.25]}`,
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newMsg(t, fd, tc.msg)
			unknown, err := transcode.Unmarshal([]byte(tc.in), m)
			if err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			assertProto(t, m, tc.want)
			if !slices.Equal([]string(unknown), tc.wantUnknown) {
				t.Errorf("unknown = %q, want %q", unknown, tc.wantUnknown)
			}
		})
	}
}

func TestUnmarshalErrors(t *testing.T) {
	t.Parallel()
	fd, _ := testSchema(t)
	testCases := []struct {
		name    string
		msg     string
		in      string
		wantErr string // the full error text
		path    string
	}{
		{"bad time with path", "ListThingsResponse", `{"things":[{},{},{"created":"2020-13-01T00:00:00"}]}`,
			`things[2].created: bad time "2020-13-01T00:00:00": field out of range`, "things[2].created"},
		{"time with zone", "Thing", `{"created":"2020-01-01T00:00:00+01:00"}`,
			`created: bad time "2020-01-01T00:00:00+01:00": want YYYY-MM-DDTHH:MM:SS`, "created"},
		{"February 30th", "Thing", `{"created":"2021-02-29T00:00:00"}`,
			`created: bad time "2021-02-29T00:00:00": field out of range`, "created"},
		{"time is a number", "Thing", `{"created":0}`, `created: expected a string, got a number`, "created"},
		{"int32 overflow", "Thing", `{"small":3000000000}`, `small: integer 3000000000 out of range for int32`, "small"},
		{"uint32 overflow in string", "Thing", `{"count":"4294967296"}`, `count: integer 4294967296 out of range for uint32`, "count"},
		{"uint64 overflow", "Thing", `{"big":18446744073709551616}`, `big: integer 18446744073709551616 out of range for uint64`, "big"},
		{"negative unsigned", "Thing", `{"id":-1}`, `id: negative integer -1 for uint64`, "id"},
		{"fraction for integer", "Thing", `{"votes":1.5}`, `votes: invalid integer "1.5"`, "votes"},
		{"non-numeric string", "Thing", `{"votes":"12a"}`, `votes: invalid integer "12a"`, "votes"},
		{"empty string integer", "Thing", `{"votes":""}`, `votes: invalid integer ""`, "votes"},
		{"number for string", "Thing", `{"name":5}`, `name: expected a string, got a number`, "name"},
		{"string for bool", "Thing", `{"flag":"true"}`, `flag: expected true or false, got a string`, "flag"},
		{"unknown enum name", "Thing", `{"color":"green"}`, `color: unknown enum name "green"`, "color"},
		{"unspecified is not a name", "Thing", `{"color":"unspecified"}`, `color: unknown enum name "unspecified"`, "color"},
		{"object for tuple", "Thing", `{"auths":[{"account":"a"}]}`, `auths[0]: expected an array, got an object`, "auths[0]"},
		{"tuple element", "Thing", `{"auths":[["a","x"]]}`, `auths[0][1]: invalid integer "x"`, "auths[0][1]"},
		{"null list element", "Thing", `{"nums":[1,null]}`, `nums[1]: null is not a valid int64 element`, "nums[1]"},
		{"ambiguous oneof", "ListThingsRequest", `{"start":["a",1]}`, `start: ambiguous value for oneof start: 2 cases accept it`, "start"},
		{"no oneof case", "ListThingsRequest", `{"start":true}`, `start: expected a value of one case of oneof start, got a boolean`, "start"},
		{"bad bare schema", "BadBare", `"x"`, `schema: test.v1.BadBare is JSON_SHAPE_BARE but has neither exactly one field nor one oneof`, ""},
		{"trailing data", "Sub", `{"a":"x"} {}`, `invalid character '{' after top-level value`, ""},
		{"empty input", "Sub", ``, `unexpected end of JSON input`, ""},
		{"unterminated string", "Sub", `{"a":"x`, `a: unterminated string`, "a"},
		{"missing colon", "Sub", `{"a" "x"}`, `expected ':' after object key, got a string`, ""},
		{"missing comma", "Thing", `{"nums":[1 2]}`, `nums: expected ',' or ']', got a number`, "nums"},
		{"bad literal", "Thing", `{"flag":tru}`, `flag: invalid literal, expected true`, "flag"},
		{"bad number in unknown", "Sub", `{"zz":01}`, `expected ',' or '}', got a number`, ""},
		{"control character", "Sub", "{\"a\":\"x\ty\"}", `a: invalid control character 0x9 in string`, "a"},
		{"bad escape", "Sub", `{"a":"\q"}`, `a: invalid escape character 'q' in string`, "a"},
		{"bad hex", "Thing", `{"raw":"zz"}`, `raw: bad hex string: encoding/hex: invalid byte: U+007A 'z'`, "raw"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newMsg(t, fd, tc.msg)
			_, err := transcode.Unmarshal([]byte(tc.in), m)
			if err == nil {
				t.Fatalf("Unmarshal(%s) succeeded, want error %q", tc.in, tc.wantErr)
			}
			if err.Error() != tc.wantErr {
				t.Errorf("error = %q\n         want %q", err, tc.wantErr)
			}
			var te *transcode.Error
			if !errors.As(err, &te) {
				t.Fatalf("error %T is not a *transcode.Error", err)
			}
			if te.Path != tc.path {
				t.Errorf("path = %q, want %q", te.Path, tc.path)
			}
			if te.Offset < 0 || te.Offset > len(tc.in) {
				t.Errorf("offset %d outside the input", te.Offset)
			}
		})
	}
}

func TestUnmarshalDepthLimit(t *testing.T) {
	t.Parallel()
	fd, _ := testSchema(t)
	testCases := []struct {
		name   string
		levels int
		ok     bool
	}{
		{"at the limit", 999, true},
		{"beyond the limit", 1001, false},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := `{"extra":` + strings.Repeat("[", tc.levels) + strings.Repeat("]", tc.levels) + `}`
			_, err := transcode.Unmarshal([]byte(in), newMsg(t, fd, "Thing"))
			if tc.ok && err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if !tc.ok && (err == nil || !strings.HasSuffix(err.Error(), ": JSON nested deeper than 1000 levels")) {
				t.Fatalf("Unmarshal error = %v, want the depth limit", err)
			}
		})
	}
}
