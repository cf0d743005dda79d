module github.com/storbench/storbench

go 1.26.8

require github.com/HdrHistogram/hdrhistogram-go v1.4.0

require (
	github.com/stretchr/testify v1.12.1 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)
