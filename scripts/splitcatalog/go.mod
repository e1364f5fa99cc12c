module splitcatalog

go 1.25.0
