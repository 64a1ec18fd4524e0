package transcode_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	bridgev1 "github.com/hivegate/hivegate/gen/hive/bridge/v1"
	condv1 "github.com/hivegate/hivegate/gen/hive/condenser_api/v1"
	typesv1 "github.com/hivegate/hivegate/gen/hive/types/v1"
	"github.com/hivegate/hivegate/server/transcode"
)

// TestLegacyAsset decodes legacy asset strings into their parts and writes
// them back unchanged.
func TestLegacyAsset(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		json string
		want string // protojson of the LegacyAsset
	}{
		{`"1.000 HIVE"`, `{"amount":"1000","precision":3,"symbol":"HIVE"}`},
		{`"0.000 HBD"`, `{"precision":3,"symbol":"HBD"}`},
		{`"448144916705.468383 VESTS"`, `{"amount":"448144916705468383","precision":6,"symbol":"VESTS"}`},
		{`"-0.500 HBD"`, `{"amount":"-500","precision":3,"symbol":"HBD"}`},
		{`"0.001 TBD"`, `{"amount":"1","precision":3,"symbol":"TBD"}`},
		{`"7 UNKN"`, `{"amount":"7","symbol":"UNKN"}`},
	}
	for _, tc := range testCases {
		t.Run(tc.json, func(t *testing.T) {
			t.Parallel()
			var m typesv1.LegacyAsset
			if _, err := transcode.Unmarshal([]byte(tc.json), &m); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			assertProto(t, &m, tc.want)
			out, err := transcode.Marshal(&m)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if string(out) != tc.json {
				t.Errorf("written back as %s, want %s", out, tc.json)
			}
		})
	}
}

// TestLegacyAssetRejects refuses strings that are not legacy assets, and
// messages that cannot be written as one.
func TestLegacyAssetRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`"1.000HIVE"`, `"HIVE"`, `"1. HIVE"`, `".5 HIVE"`, `"1.000 "`, `"1.000 HI VE"`, `"x.000 HIVE"`,
		`"99999999999999999999 HIVE"`, `1000`, `{"amount":"1000","precision":3,"nai":"@@000000021"}`} {
		var m typesv1.LegacyAsset
		if _, err := transcode.Unmarshal([]byte(in), &m); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", in, &m)
		}
	}
	if out, err := transcode.Marshal(&typesv1.LegacyAsset{Amount: 1}); err == nil {
		t.Errorf("Marshal without a symbol = %s, want an error", out)
	}
}

// TestTimeSeparator writes a field with (hivegate.v1.time_separator) " "
// the way hivemind does, and reads either separator.
func TestTimeSeparator(t *testing.T) {
	t.Parallel()
	in := `{"id":1,"name":"hive-1","title":"t","about":"","lang":"en","type_id":1,"is_nsfw":false,"subscribers":2,` +
		`"sum_pending":0,"num_pending":0,"num_authors":0,"created_at":"2019-10-27 08:28:51","context":{}}`
	var m bridgev1.CommunityListItem
	if unknown, err := transcode.Unmarshal([]byte(in), &m); err != nil || len(unknown) > 0 {
		t.Fatalf("Unmarshal: %v, unknown %v", err, unknown)
	}
	if got := m.GetCreatedAt().AsTime().Format("2006-01-02 15:04:05"); got != "2019-10-27 08:28:51" {
		t.Fatalf("created_at = %s", got)
	}
	out, err := transcode.Marshal(&m)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("written back as\n %s\nwant\n %s", out, in)
	}
	// A hived-style time is read too, and written with the field's separator.
	var m2 bridgev1.CommunityListItem
	if _, err := transcode.Unmarshal([]byte(`{"created_at":"2019-10-27T08:28:51"}`), &m2); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(m2.GetCreatedAt(), m.GetCreatedAt()) {
		t.Errorf("T-separated time read as %v, want %v", m2.GetCreatedAt(), m.GetCreatedAt())
	}
}

// TestNullListElement reads hived's vector<optional<T>> (condenser_api
// get_witnesses answers null for an unknown id) into empty elements and
// writes them back as null.
func TestNullListElement(t *testing.T) {
	t.Parallel()
	in := `[null,{"id":3,"owner":"w"},null]`
	var m condv1.GetWitnessesResponse
	if _, err := transcode.Unmarshal([]byte(in), &m); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	ws := m.GetWitnesses()
	if len(ws) != 3 || ws[0].GetWitness() != nil || ws[1].GetWitness().GetOwner() != "w" || ws[2].GetWitness() != nil {
		t.Fatalf("decoded %v", &m)
	}
	out, err := transcode.Marshal(&m)
	if err != nil {
		t.Fatal(err)
	}
	var back condv1.GetWitnessesResponse
	if _, err := transcode.Unmarshal(out, &back); err != nil || !proto.Equal(&back, &m) {
		t.Errorf("written as %s, which reads back as %v (%v)", out, &back, err)
	}
	if string(out[:5]) != "[null" || string(out[len(out)-5:]) != "null]" {
		t.Errorf("written as %s, want the nulls kept", out)
	}
}
