package testutil

import "encoding/binary"

// ZstdBomb is a zstd frame of about size bytes that decompresses to
// 32768 times as much (1 MB: 32 GiB of zeros): RLE blocks of 128 KiB,
// 3 bytes of header and one byte each, and no content size in the frame
// header, so a reader learns how much only by decoding.
func ZstdBomb(size int) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, // magic
		0x00, // frame header: no content size, not single segment, no checksum
		0x38, // window descriptor: 1<<(10+7) = 128 KiB
	}
	const block = 128 << 10
	n := max((size-len(b))/4, 1)
	for i := range n {
		h := uint32(block<<3 | 1<<1) // RLE block of 128 KiB
		if i == n-1 {
			h |= 1 // the last block
		}
		var hb [4]byte
		binary.LittleEndian.PutUint32(hb[:], h)
		b = append(b, hb[0], hb[1], hb[2], 0x00)
	}
	return b
}
