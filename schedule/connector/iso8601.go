package connector

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// s3-iceberg reads upload_interval with an ISO-8601 duration parser
// (P[nY][nM][nW][nD][T[nH][nM][nS]], integers only, each part optional),
// then refuses any non-zero years, months, weeks or days and anything over
// 4h. Its texts are the parser's and the connector's.
var iso8601Re = regexp.MustCompile(`^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$`)

var errISO8601 = errors.New("could not parse duration string")

// ParseISO8601 reads s3-iceberg's upload_interval. "PT0S", "P0D", "P" and
// "PT" all mean zero. Hours, minutes and seconds are summed in int64
// nanoseconds with wrap-around, as the connector does, so a huge value can
// come out negative (no delay).
func ParseISO8601(s string) (time.Duration, error) {
	m := iso8601Re.FindStringSubmatch(s)
	if m == nil {
		return 0, errISO8601
	}
	var n [7]int64
	for i, part := range m[1:] {
		if part == "" {
			continue
		}
		v, err := strconv.Atoi(part)
		if err != nil {
			return 0, err
		}
		n[i] = int64(v)
	}
	d := n[4]*int64(time.Hour) + n[5]*int64(time.Minute) + n[6]*int64(time.Second)
	if time.Duration(d) > 4*time.Hour || n[0] != 0 || n[1] != 0 || n[2] != 0 || n[3] != 0 {
		return 0, fmt.Errorf("upload_interval %q is invalid: must be no greater than 4 hours", s)
	}
	return time.Duration(d), nil
}
