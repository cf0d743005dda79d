//go:build !linux

package engine

// machineKey is "" where storbench cannot name the machine: no lease is
// ever found to be a gone process's.
func machineKey() string { return "" }

// processStart is "" where storbench cannot read a process's start.
func processStart(int) string { return "" }
