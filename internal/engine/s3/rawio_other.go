//go:build !(linux && (amd64 || arm64))

package s3

import "net"

// connIO is a lean connection's I/O; elsewhere than Linux it is net.Conn's.
type connIO struct {
	c    net.Conn
	bufs net.Buffers
}

func newConnIO(c net.Conn) (*connIO, error) { return &connIO{c: c}, nil }

func (c *connIO) Read(p []byte) (int, error) { return c.c.Read(p) }

func (c *connIO) writev(bufs [][]byte) error {
	c.bufs = bufs
	_, err := c.bufs.WriteTo(c.c)
	return err
}
