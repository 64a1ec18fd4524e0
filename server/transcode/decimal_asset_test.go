package transcode_test

import (
	"testing"

	bridgev1 "github.com/hivegate/hivegate/gen/hive/bridge/v1"
	typesv1 "github.com/hivegate/hivegate/gen/hive/types/v1"
	"github.com/hivegate/hivegate/server/transcode"
)

// TestDecimalAsset decodes hivemind's bare payout numbers
// ((hivegate.v1.json_decimal) fields) into LegacyAsset messages in HBD and
// writes them back as the same number (issue 28 item 7: bridge payouts were
// doubles, every other amount an asset).
func TestDecimalAsset(t *testing.T) {
	t.Parallel()
	testCases := []struct {
		json string
		want string // protojson of GetPayoutStatsResponse
		back string // written back; "" = json
	}{
		{`{"items":[["hive-1","One",218.988,3,2]],"total":91599.777,"blogs":0}`,
			`{"items":[{"name":"hive-1","title":"One","payout":{"amount":"218988","precision":3,"symbol":"HBD"},"posts":3,"authors":2}],
			  "total":{"amount":"91599777","precision":3,"symbol":"HBD"},"blogs":{"symbol":"HBD"}}`, ""},
		// Python floats: fewer places, an exponent, a sign.
		{`{"items":[],"total":1.2,"blogs":-0.5}`,
			`{"total":{"amount":"12","precision":1,"symbol":"HBD"},"blogs":{"amount":"-5","precision":1,"symbol":"HBD"}}`, ""},
		{`{"items":[],"total":1e-05,"blogs":2E+2}`,
			`{"total":{"amount":"1","precision":5,"symbol":"HBD"},"blogs":{"amount":"200","symbol":"HBD"}}`,
			`{"items":[],"total":0.00001,"blogs":200}`},
	}
	for _, tc := range testCases {
		t.Run(tc.json, func(t *testing.T) {
			t.Parallel()
			var m bridgev1.GetPayoutStatsResponse
			if _, err := transcode.Unmarshal([]byte(tc.json), &m); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			assertProto(t, &m, tc.want)
			out, err := transcode.Marshal(&m)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			want := tc.back
			if want == "" {
				want = tc.json
			}
			if string(out) != want {
				t.Errorf("written back as %s, want %s", out, want)
			}
		})
	}
}

// TestDecimalAssetRejects refuses JSON that is not a number, numbers that do
// not fit, and assets of another symbol.
func TestDecimalAssetRejects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`{"total":"1.000 HBD"}`, `{"total":99999999999999999999}`, `{"total":1e-40}`, `{"total":true}`} {
		var m bridgev1.GetPayoutStatsResponse
		if _, err := transcode.Unmarshal([]byte(in), &m); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", in, &m)
		}
	}
	m := &bridgev1.GetPayoutStatsResponse{Total: &typesv1.LegacyAsset{Amount: 1, Precision: 3, Symbol: "HIVE"}}
	if out, err := transcode.Marshal(m); err == nil {
		t.Errorf("Marshal of a HIVE amount = %s, want an error", out)
	}
}
