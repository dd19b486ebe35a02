module admission-workbench/go-min

go 1.26.0
