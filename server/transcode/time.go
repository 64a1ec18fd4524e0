package transcode

import "google.golang.org/protobuf/reflect/protoreflect"

// Field numbers of the well-known types handled specially.
const (
	tsSeconds        protoreflect.FieldNumber = 1 // google.protobuf.Timestamp.seconds
	valueNull        protoreflect.FieldNumber = 1 // google.protobuf.Value.null_value
	valueNumber      protoreflect.FieldNumber = 2 // google.protobuf.Value.number_value
	valueString      protoreflect.FieldNumber = 3 // google.protobuf.Value.string_value
	valueBool        protoreflect.FieldNumber = 4 // google.protobuf.Value.bool_value
	valueStruct      protoreflect.FieldNumber = 5 // google.protobuf.Value.struct_value
	valueList        protoreflect.FieldNumber = 6 // google.protobuf.Value.list_value
	structFields     protoreflect.FieldNumber = 1 // google.protobuf.Struct.fields
	listValueValues  protoreflect.FieldNumber = 1 // google.protobuf.ListValue.values
	hivedTimeLen                              = len("2006-01-02T15:04:05")
	maxExactFloatInt                          = 1<<53 - 1
)

// parseHivedTime parses hived's "YYYY-MM-DDTHH:MM:SS" (UTC, no zone; a
// trailing "Z" is accepted, and so is hivemind's space in place of the 'T')
// into Unix seconds. "1969-12-31T23:59:59", hived's
// time_point_sec::maximum() printed as a signed 32-bit value, is simply -1.
func parseHivedTime(s []byte) (int64, error) {
	if len(s) == hivedTimeLen+1 && s[hivedTimeLen] == 'Z' {
		s = s[:hivedTimeLen]
	}
	if len(s) != hivedTimeLen || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':' {
		return 0, errf("bad time %q: want YYYY-MM-DDTHH:MM:SS", s)
	}
	num := func(b []byte) int {
		n := 0
		for _, c := range b {
			if !isDigit(c) {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(s[0:4]), num(s[5:7]), num(s[8:10])
	hour, minute, sec := num(s[11:13]), num(s[14:16]), num(s[17:19])
	if year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return 0, errf("bad time %q: field out of range", s)
	}
	days := daysFromCivil(int64(year), int64(month), int64(day))
	return days*86400 + int64(hour)*3600 + int64(minute)*60 + int64(sec), nil
}

// appendHivedTime appends Unix seconds as hived's time string. Years outside
// 0000..9999 cannot be written.
func appendHivedTime(b []byte, unix int64) ([]byte, bool) {
	days := unix / 86400
	rem := unix % 86400
	if rem < 0 {
		rem += 86400
		days--
	}
	y, m, d := civilFromDays(days)
	if y < 0 || y > 9999 {
		return b, false
	}
	b = append(b,
		byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-',
		byte('0'+d/10), byte('0'+d%10), 'T',
		byte('0'+rem/36000), byte('0'+rem/3600%10), ':',
		byte('0'+rem%3600/600), byte('0'+rem%3600/60%10), ':',
		byte('0'+rem%60/10), byte('0'+rem%10))
	return b, true
}

// daysIn returns the number of days in a month of the proleptic Gregorian
// calendar.
func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	default:
		return 31
	}
}

// daysFromCivil returns days since 1970-01-01 (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}
