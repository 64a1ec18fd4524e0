package jsonwire_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hivegate/hivegate/jsonwire"
)

func ExampleAppendCanonical() {
	for _, params := range []string{
		`{"permlink": "p", "author": "\u0061lice"}`,
		`["\ud800"]`,
		`["\ufffd"]`,
		`[1.0]`,
	} {
		key, _ := jsonwire.AppendCanonical([]byte("params="), []byte(params))
		fmt.Println(string(key))
	}
	// Output:
	// params={"author":"alice","permlink":"p"}
	// params=["\ud800"]
	// params=["�"]
	// params=[1.0]
}

func ExampleValid() {
	deep := strings.Repeat("[", 100_000)
	fmt.Println(errors.Is(jsonwire.Valid([]byte(deep), 64), jsonwire.ErrTooDeep))
	fmt.Println(errors.Is(jsonwire.Valid([]byte(`[1,]`), 64), jsonwire.ErrInvalid))
	// Output:
	// true
	// true
}

func ExampleMember() {
	block := []byte(`{"previous":"0000000a","block_id":"0000000b","transactions":[]}`)
	id, found, err := jsonwire.Member(block, "block_id", 64)
	fmt.Println(string(id), found, err)
	// Output: "0000000b" true <nil>
}
