package connector

import (
	"fmt"
	"strconv"
	"time"
)

// ParseISO8601 reads s3-iceberg's upload_interval:
// P[nY][nM][nW][nD][T[nH][nM][nS]] with integers only. Non-zero years,
// months, weeks or days are refused, as is anything over 4h. "PT0S", "P0D",
// "P" and "PT" all mean zero.
func ParseISO8601(s string) (time.Duration, error) {
	bad := fmt.Errorf("invalid ISO-8601 duration %q (expected a form like PT15M)", s)
	if len(s) == 0 || s[0] != 'P' {
		return 0, bad
	}
	i := 1
	dateUnits, timeUnits := "YMWD", "HMS"
	inTime := false
	var dated bool
	var total time.Duration
	order := 0
	for i < len(s) {
		if s[i] == 'T' {
			if inTime {
				return 0, bad
			}
			inTime, order = true, 0
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || j == len(s) {
			return 0, bad
		}
		n, err := strconv.ParseInt(s[i:j], 10, 64)
		if err != nil {
			return 0, bad
		}
		units := dateUnits
		if inTime {
			units = timeUnits
		}
		k := indexFrom(units, s[j], order)
		if k < 0 {
			return 0, bad
		}
		order = k + 1
		if !inTime {
			dated = dated || n != 0
		} else {
			scale := []time.Duration{time.Hour, time.Minute, time.Second}[k]
			if n > int64(5*time.Hour/scale) {
				return 0, fmt.Errorf("upload_interval %q must be at most 4 hours", s)
			}
			total += time.Duration(n) * scale
		}
		i = j + 1
	}
	if dated {
		return 0, fmt.Errorf("upload_interval %q must not use years, months, weeks or days", s)
	}
	if total > 4*time.Hour {
		return 0, fmt.Errorf("upload_interval %q must be at most 4 hours", s)
	}
	return total, nil
}

func indexFrom(units string, c byte, from int) int {
	for k := from; k < len(units); k++ {
		if units[k] == c {
			return k
		}
	}
	return -1
}
