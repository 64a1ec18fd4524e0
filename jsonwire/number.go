package jsonwire

import (
	"bytes"
	"strconv"
)

// maxExpDigits bounds the exponent digits a normalised number keeps exact;
// beyond it (exponents of a quadrillion and more) the exponent saturates.
const maxExpDigits = 15

// appendNormNumber appends a canonical spelling of the value of the JSON
// number num (already checked by ScanNumber): [-]0.<digits>e<exp> with
// no leading or trailing zeros in digits, or 0. Equal values give equal
// bytes, exactly, whatever their size: no float64 rounding.
func appendNormNumber(dst, num []byte) []byte {
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	var intPart, frac, exp []byte
	intPart = num
	if i := bytes.IndexAny(num, ".eE"); i >= 0 {
		intPart = num[:i]
		rest := num[i:]
		if rest[0] == '.' {
			frac = rest[1:]
			if j := bytes.IndexAny(frac, "eE"); j >= 0 {
				exp = frac[j+1:]
				frac = frac[:j]
			}
		} else {
			exp = rest[1:]
		}
	}
	digit := func(i int) byte {
		if i < len(intPart) {
			return intPart[i]
		}
		return frac[i-len(intPart)]
	}
	n := len(intPart) + len(frac)
	lead := 0
	for lead < n && digit(lead) == '0' {
		lead++
	}
	if lead == n {
		return append(dst, '0')
	}
	end := n
	for digit(end-1) == '0' {
		end--
	}
	// value = 0.<digits[lead:end]> × 10^(len(intPart) - lead + exp)
	e := int64(len(intPart) - lead)
	if len(exp) > 0 {
		expNeg := exp[0] == '-'
		if exp[0] == '-' || exp[0] == '+' {
			exp = exp[1:]
		}
		exp = bytes.TrimLeft(exp, "0")
		var x int64
		if len(exp) > maxExpDigits {
			x = 1_000_000_000_000_000
		} else {
			for _, c := range exp {
				x = x*10 + int64(c-'0')
			}
		}
		if expNeg {
			x = -x
		}
		e += x
	}
	if neg {
		dst = append(dst, '-')
	}
	dst = append(dst, '0', '.')
	for i := lead; i < end; i++ {
		dst = append(dst, digit(i))
	}
	dst = append(dst, 'e')
	return strconv.AppendInt(dst, e, 10)
}
