package migrate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/estuary/schedtool/catalog/users"
)

// holderText says, in migrate's words, who holds a config file back and
// why it is not migrated with the file's other users.
func holderText(h users.Holder) string {
	var why string
	switch h.Cause {
	case users.CauseRefused:
		why = "its reference was refused: " + h.Detail
	case users.CauseOtherKind:
		why = "a " + h.Detail + ", which schedtool does not migrate"
	case users.CauseDuplicated:
		why = "defined more than once in one catalog, so no definition of it is migrated"
	case users.CauseNotSelected:
		why = "not selected by --name/--prefix/--image"
	case users.CauseExcluded:
		why = "excluded by the project file (exclude), and still a user of the file"
	case users.CauseHidden:
		why = "under the PATHs given, in a source they do not read (in a hidden directory, and not imported by a source they read)"
	case users.CauseNotUnderPaths:
		why = "not under the PATHs given"
	case users.CauseNamedOnly:
		why = fmt.Sprintf("its reference (read as %s) names no file there, but it names %s", h.Detail, h.Named)
	case users.CauseRootUnsearchable:
		why = "the root cannot be searched for the file's users: " + h.Detail
	case users.CauseUnreadable:
		why = "a catalog source that " + h.Detail + ": it might use any config file until it can be read"
	case users.CauseUnparsed:
		why = fmt.Sprintf("a catalog source that %s, and names %s: it might use it until it parses", h.Detail, h.Named)
	case users.CauseOtherPath:
		why = "this run reads its source by another path, from whose directory the reference names another file; Flow, given this path, reads this one"
	default:
		// A cause added to users and not here still holds the file.
		why = "a user of the file this run does not read"
	}
	if h.Name == "" {
		return fmt.Sprintf("%s (%s)", h.Where, why)
	}
	return fmt.Sprintf("%s (%s: %s)", h.Name, h.Where, why)
}

// holderTexts says who holds a config file back, one text a holder, in
// the order of the texts.
func holderTexts(hs []users.Holder) []string {
	out := make([]string, 0, len(hs))
	for _, h := range hs {
		out = append(out, holderText(h))
	}
	sort.Strings(out)
	return out
}

// UnreadNote is the line that says which config files a catalog source
// that cannot be read or parsed holds back.
func UnreadNote(u users.Unread) string {
	return fmt.Sprintf("%s %s: it might use any config file, so it holds back %s", u.File, u.Why, strings.Join(u.Holds, ", "))
}
