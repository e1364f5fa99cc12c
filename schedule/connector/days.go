package connector

import (
	"fmt"
	"strings"
)

// Day tokens of the connector's fastSyncEnabledDays grammar, Sunday = 0.
// Case-sensitive; "S" is Saturday.
var dayTokens = map[string]int{"Su": 0, "M": 1, "T": 2, "W": 3, "Th": 4, "F": 5, "S": 6}

// DayTokens lists the tokens Sunday first.
var DayTokens = [7]string{"Su", "M", "T", "W", "Th", "F", "S"}

// ParseDays reads fastSyncEnabledDays ("M-F", "Su,T-Th"). The empty string
// enables every day. Parts are tokens or ranges A-B with A before B, strictly
// ascending and never overlapping.
func ParseDays(s string) ([7]bool, error) {
	var on [7]bool
	if s == "" {
		return [7]bool{true, true, true, true, true, true, true}, nil
	}
	last := -1
	token := func(t string) (int, error) {
		if d, ok := dayTokens[t]; ok {
			return d, nil
		}
		return -1, fmt.Errorf("invalid day specification: %q", t)
	}
	for _, part := range strings.Split(s, ",") {
		ends := strings.Split(part, "-")
		var a, b int
		var err error
		switch len(ends) {
		case 1:
			if a, err = token(ends[0]); err != nil {
				return on, err
			}
			b = a
		case 2:
			if a, err = token(ends[0]); err != nil {
				return on, err
			}
			if b, err = token(ends[1]); err != nil {
				return on, err
			}
			if a >= b {
				return on, fmt.Errorf("invalid day specification: %q (days of a range must be different and in increasing order)", part)
			}
		default:
			return on, fmt.Errorf("invalid day specification: %q", part)
		}
		if a <= last {
			return on, fmt.Errorf("days specified in %q must be in ascending order and not repeat", s)
		}
		for d := a; d <= b; d++ {
			on[d] = true
		}
		last = b
	}
	return on, nil
}
