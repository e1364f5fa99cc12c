module github.com/estuary/schedtool/boilerplate

go 1.25.0
