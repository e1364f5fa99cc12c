package main

// The move: where each file and declaration of catalog/ goes. Everything
// not named here stays where it is. A method goes with its receiver's
// type; a declaration's comments go with it.

const module = "github.com/estuary/schedtool"

// pkgDest is a package of the tree: its directory and its name (an
// external test package is its directory's with "_test").
type pkgDest struct{ dir, name string }

func (p pkgDest) importPath() string { return module + "/" + p.dir }

// dest is a file of a package, by base name.
type dest struct {
	pkg  pkgDest
	file string
}

var (
	catalogPkg  = pkgDest{"catalog", "catalog"}
	catalogTest = pkgDest{"catalog", "catalog_test"}
	inputPkg    = pkgDest{"catalog/input", "input"}
	livePkg     = pkgDest{"catalog/livespecs", "livespecs"}
	usersPkg    = pkgDest{"catalog/users", "users"}
	pathsPkg    = pkgDest{"internal/paths", "paths"}
	migratePkg  = pkgDest{"migrate", "migrate"}
	treePkg     = pkgDest{"catalog/tree", "tree"}
)

// fileMoves sends a whole file of catalog/ (but the declarations
// declMoves names) to another package or name.
var fileMoves = map[string]dest{
	// Finding inputs.
	"resolve.go":      {inputPkg, "resolve.go"},
	"walk.go":         {inputPkg, "walk.go"},
	"sniff.go":        {inputPkg, "judge.go"}, // not sniff.go beside package catalog/sniff
	"detect.go":       {inputPkg, "detect.go"},
	"resolve_test.go": {inputPkg, "resolve_test.go"},
	"root_test.go":    {inputPkg, "root_test.go"},
	"walk_test.go":    {inputPkg, "walk_test.go"},
	"sniff_test.go":   {inputPkg, "judge_test.go"},
	"detect_test.go":  {inputPkg, "detect_test.go"},
	"display_test.go": {inputPkg, "display_test.go"}, // Resolve, then Load: the paths it shows
	"select_test.go":  {catalogPkg, "select_test.go"},
	// Stored specs and their PostgreSQL reader.
	"dump.go":         {livePkg, "dump.go"},
	"rawrows.go":      {livePkg, "rawrows.go"},
	"dbinput.go":      {livePkg, "dbinput.go"},
	"store.go":        {livePkg, "dburl.go"}, // it holds database URLs, not a store
	"dump_test.go":    {livePkg, "dump_test.go"},
	"rawrows_test.go": {livePkg, "rawrows_test.go"},
	"rawpos_test.go":  {livePkg, "rawpos_test.go"},
	"rowscan_test.go": {livePkg, "rowscan_test.go"},
	"hold_test.go":    {livePkg, "dbinput_test.go"},
	"store_test.go":   {livePkg, "dburl_test.go"},
	// The users of a config file.
	"users.go":      {usersPkg, "users.go"},
	"users_test.go": {usersPkg, "users_test.go"},
	// Copying the tree for --out DIR: migrate's alone.
	"refs.go":      {migratePkg, "refs.go"},
	"refs_test.go": {migratePkg, "refs_test.go"},
	// The model: which sources form a catalog, not beside package
	// catalog/catalogs under its name.
	"catalogs.go": {catalogPkg, "definitions.go"},
	// catalog's tests that resolve inputs: consumers of catalog/input,
	// which imports catalog.
	"catalogs_test.go":     {catalogTest, "definitions_test.go"},
	"resource_test.go":     {catalogTest, "resource_test.go"},
	"specproblems_test.go": {catalogTest, "specproblems_test.go"},
	// Text decoding, with the parser.
	"text.go":       {treePkg, "text.go"},
	"text_test.go":  {treePkg, "text_test.go"},
	"under_test.go": {pathsPkg, "within_test.go"},
}

// declMoves sends one declaration (by name; a var, const or type group
// by any of its names) elsewhere than its file goes.
var declMoves = map[string]dest{
	// What Load takes stays with the model.
	"Options":        {catalogPkg, "options.go"},
	"DefaultOptions": {catalogPkg, "options.go"},
	"UsageError":     {catalogPkg, "options.go"},
	"Input":          {catalogPkg, "options.go"},
	"Describe":       {catalogPkg, "options.go"},
	// Byte order marks of dumps: the stored-spec readers'.
	"bom":     {livePkg, "rawrows.go"},
	"skipBOM": {livePkg, "rawrows.go"},
	"dropBOM": {livePkg, "rawrows.go"},
	// textSeen: a dump with no rows.
	"textSeen": {livePkg, "dbinput.go"},
	// Whether a file is a catalog source: the walk's, which the users
	// walk shares.
	"looksLikeSource":   {inputPkg, "judge.go"},
	"userSourceKeys":    {inputPkg, "judge.go"},
	"mentionsSourceKey": {inputPkg, "judge.go"},
	"startsSourceKey":   {inputPkg, "judge.go"},
	"sourceKeyLine":     {inputPkg, "judge.go"},
	"looseText":         {inputPkg, "judge.go"},
	"readHead":          {inputPkg, "judge.go"},
	// Parsing a document by its name, with the parser.
	"Parse":         {treePkg, "parse.go"},
	"ParseSource":   {treePkg, "parse.go"},
	"readAsJSON":    {treePkg, "parse.go"},
	"looksJSON":     {treePkg, "parse.go"},
	"checkText":     {treePkg, "text.go"},
	"article":       {treePkg, "parse.go"},
	"TestCycleText": {catalogPkg, "load_test.go"},
	// File primitives.
	"fileKey":        {pathsPkg, "key.go"},
	"ReadRegular":    {pathsPkg, "read.go"},
	"tooLargeError":  {pathsPkg, "read.go"},
	"FormatSize":     {pathsPkg, "read.go"},
	"TestFormatSize": {pathsPkg, "read_test.go"},
	"within":         {pathsPkg, "within.go"},
	"FlowPath":       {pathsPkg, "flowpath.go"},
	"PercentDecode":  {pathsPkg, "flowpath.go"},
	"hasScheme":      {pathsPkg, "flowpath.go"},
	"isHex":          {pathsPkg, "flowpath.go"},
	"TestFlowPath":   {pathsPkg, "flowpath_test.go"},
	"FuzzFlowPath":   {pathsPkg, "flowpath_test.go"},
	// Tests that follow what they test.
	"TestLooksLikeDump": {inputPkg, "detect_test.go"},
	"TestSniff":         {inputPkg, "judge_test.go"},
}

// inlined are catalog's aliases of internal/paths's names: their uses
// name internal/paths's, and they go.
var inlined = map[string]string{
	"FileID":          "FileID",
	"Identify":        "Identify",
	"IdentifyInfo":    "IdentifyInfo",
	"NotRegularError": "NotRegularError",
	"OpenRegular":     "OpenRegular",
	"Under":           "Under",
	"IsTemp":          "IsTemp",
}

// renames are the names an unexported declaration takes when another
// package uses it (without one, its first letter is raised).
var renames = map[string]string{
	"fileKey":       "Key",
	"tooLargeError": "TooLargeError",
	"within":        "Within",
	"walkSources":   "WalkSources",
	"found":         "Found",      // what WalkSources returns
	"TestUnder":     "TestWithin", // internal/paths has its own TestUnder
}

// docs are the package comments of the new packages (doc.go), and
// catalog's own.
var docs = map[pkgDest]string{
	catalogPkg: `// Package catalog is the model of a Flow catalog and its loading: Load
// reads sources with their imports, config files and sealed (sops)
// configs into materializations whose every node knows its file, line,
// column and JSON pointer. Finding the inputs is catalog/input's, stored
// specs catalog/livespecs's, the users of a config file catalog/users's.
`,
	inputPkg: `// Package input finds a run's inputs: Resolve turns PATHs into catalog
// sources (the one walk of a directory, sources told by name or by
// content), stored-spec dumps, flowctl raw get arrays, standard input and
// database URLs, each with its containment root.
`,
	livePkg: `// Package livespecs reads stored specs: live_specs rows from dumps,
// flowctl raw get arrays and PostgreSQL (through Options.OpenDB), scanned
// in parallel and in order, and the database URLs they come from, shown
// without their passwords.
`,
	usersPkg: `// Package users finds the users of a config file that a run leaves out:
// every task under the inputs' roots that references it, compared by
// file identity, and the sources that cannot be read and might.
`,
}

// docRows are the rows of docs/design.md's package table that change,
// by their first cell; a row is added after the one named by after when
// it is not there.
var docRows = []struct{ cell, after, text string }{
	{"`catalog`", "", "| `catalog` | the model of a catalog and `Load`: imports (cycles, containment, symlinks), config files, sops, selection (`--name`, `--prefix`, `--image`); `definitions.go`: which sources form a catalog (import closures), names defined in several catalogs or twice in one, and the one counting of tasks and unreadable inputs; `Options` and `Input`, what `Load` reads |"},
	{"`catalog/input`", "`catalog`", "| `catalog/input` | finding inputs: `Resolve` turns PATHs into sources, dumps, flowctl arrays, standard input and database URLs, each with its root (git work tree, submodules); the one walk of a directory; sources told by name or content (`judge.go`, large files through `catalog/sniff`); dumps and arrays told by their first bytes |"},
	{"`catalog/livespecs`", "`catalog/input`", "| `catalog/livespecs` | stored specs: streamed parallel `live_specs` reading in order (`ScanDump`), flowctl raw get arrays as rows, database inputs read once (`HoldDB`, `EachDump`, through `Options.OpenDB`), database URLs and their passwords (`dburl.go`) |"},
	{"`catalog/users`", "`catalog/livespecs`", "| `catalog/users` | the users of a config file that a run leaves out (`Users`): every task under the roots that references it, by file identity, and sources that cannot be read and might; migrate says why each holds the file |"},
	{"`catalog/tree`", "", "| `catalog/tree` | one position-aware tree for YAML (go.yaml.in/yaml/v3) and JSON (its own parser: byte offsets, tabs, arenas for dumps), RFC 7396 merge patch; a document's bytes decoded as Flow's reader decodes them (`DecodeText`: UTF-8, UTF-16 with a byte order mark) and parsed by its name (`Parse`, `ParseSource`) |"},
	{"`internal/paths`, `internal/words`", "", "| `internal/paths`, `internal/words` | what the catalog readers and the writer (`internal/groupwrite`) share without importing each other or `report`: a file's identity and key, schedtool's temp-file names, lexical containment, opening and reading a regular file without blocking (size limits), how Flow reads a path (`FlowPath`); `Plural` |"},
}

// textFixes are the words of comments and docs that name a file by its
// old name.
var textFixes = []struct{ file, old, new string }{
	{"catalog/load.go", "catalogs.go", "definitions.go"},
	{"catalog/input/judge.go", "(users.go)", "(catalog/users)"},
	{"catalog/input/judge.go", "never parsed (sniff.go)", "never parsed (catalog/sniff)"},
	{"docs/design.md", "| `catalog/...` | 2 catalog | layers 0 to 2: reading and editing catalogs (positions, imports, config files, sops, dumps, PostgreSQL) |",
		"| `catalog/...` | 2 catalog | layers 0 to 2: reading and editing catalogs (positions, imports, config files, sops, dumps, PostgreSQL). Within it, bottom to top: `catalog/tree` and `catalog/sniff`, the model (`catalog`, beside `catalog/catalogs`), stored specs (`catalog/livespecs`, `catalog/pgsource`), finding inputs (`catalog/input`), the users of a config file (`catalog/users`); `catalog/edit` edits trees |"},
}
