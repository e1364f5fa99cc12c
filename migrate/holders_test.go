package migrate

import (
	"strings"
	"testing"

	"github.com/estuary/schedtool/catalog/users"
)

// Every cause users gives has migrate's words (none falls to the
// fallback), and the words are the ones the goldens and docs quote.
func TestHolderText(t *testing.T) {
	for _, tc := range []struct {
		h    users.Holder
		want string
	}{
		{users.Holder{Name: "a/b", Where: "f.yaml:3", Cause: users.CauseRefused, Detail: "it escapes the root"}, "a/b (f.yaml:3: its reference was refused: it escapes the root)"},
		{users.Holder{Name: "a/c", Where: "f.yaml:3", Cause: users.CauseOtherKind, Detail: "capture"}, "a/c (f.yaml:3: a capture, which schedtool does not migrate)"},
		{users.Holder{Name: "a/d", Where: "f.yaml:3", Cause: users.CauseDuplicated}, "a/d (f.yaml:3: defined more than once in one catalog, so no definition of it is migrated)"},
		{users.Holder{Name: "a/e", Where: "f.yaml:3", Cause: users.CauseNotSelected}, "a/e (f.yaml:3: not selected by --name/--prefix/--image)"},
		{users.Holder{Name: "a/f", Where: "f.yaml:3", Cause: users.CauseExcluded}, "a/f (f.yaml:3: excluded by the project file (exclude), and still a user of the file)"},
		{users.Holder{Name: "a/g", Where: ".p/f.yaml:3", Cause: users.CauseHidden}, "a/g (.p/f.yaml:3: under the PATHs given, in a source they do not read (in a hidden directory, and not imported by a source they read))"},
		{users.Holder{Name: "a/h", Where: "f.yaml:3", Cause: users.CauseNotUnderPaths}, "a/h (f.yaml:3: not under the PATHs given)"},
		{users.Holder{Name: "a/i", Where: "f.yaml:3", Cause: users.CauseNamedOnly, Detail: "https://x/s.yaml", Named: "s.yaml"}, "a/i (f.yaml:3: its reference (read as https://x/s.yaml) names no file there, but it names s.yaml)"},
		{users.Holder{Where: "r", Cause: users.CauseRootUnsearchable, Detail: "permission denied"}, "r (the root cannot be searched for the file's users: permission denied)"},
		{users.Holder{Where: "b.yaml", Cause: users.CauseUnreadable, Detail: "cannot be read: permission denied"}, "b.yaml (a catalog source that cannot be read: permission denied: it might use any config file until it can be read)"},
		{users.Holder{Where: "b.yaml", Cause: users.CauseUnparsed, Detail: "does not parse: 8:1: duplicate key", Named: "s.yaml"}, "b.yaml (a catalog source that does not parse: 8:1: duplicate key, and names s.yaml: it might use it until it parses)"},
		// The fallback: a cause without words still names the holder.
		{users.Holder{Name: "a/z", Where: "f.yaml:3", Cause: 0}, "a/z (f.yaml:3: a user of the file this run does not read)"},
	} {
		if got := holderText(tc.h); got != tc.want {
			t.Errorf("cause %d:\n got %s\nwant %s", tc.h.Cause, got, tc.want)
		}
	}
	got := UnreadNote(users.Unread{File: "b.yaml", Why: "does not parse", Holds: []string{"s.yaml", "t.yaml"}})
	if want := "b.yaml does not parse: it might use any config file, so it holds back s.yaml, t.yaml"; got != want {
		t.Errorf("UnreadNote: %s, want %s", got, want)
	}
	if texts := holderTexts([]users.Holder{{Name: "b", Where: "x:1", Cause: users.CauseNotSelected}, {Name: "a", Where: "x:2", Cause: users.CauseNotSelected}}); !strings.HasPrefix(texts[0], "a (") {
		t.Errorf("holderTexts not in the order of the texts: %q", texts)
	}
}
