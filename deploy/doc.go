// Package deploy holds no code: its tests check what ships beside the
// binary - the Helm chart (helm/storbench), the systemd unit
// (systemd/storbench-agent.service) and the release artefacts
// (scripts/release.sh: static binaries, .deb and .rpm, the OCI image) - by
// running the commands they hold with the real storbench.
package deploy
