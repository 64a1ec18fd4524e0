package jsonrpchttp

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/flate"

	"github.com/hivegate/hivegate/dispatch"
)

// Answers to clients that send Accept-Encoding: gzip are gzip-encoded
// (klauspost/compress's deflate) when they are at least
// HandlerOptions.CompressMinBytes long.
//
// A result that comes from the cache is compressed once: its deflate form
// is kept with the cache entry (dispatch.Result.Forms, cache.Entry.SetDerived) and
// spliced into every later answer that carries it. An answer is one gzip
// member whose deflate stream is a run of segments: the envelope around
// each result ({"jsonrpc":"2.0","result": ... ,"id":7}) and the results
// that have no kept form are compressed as the answer is written; a kept
// form is a segment of its own, made by a compressor that had seen nothing
// before the result and ended with a sync flush (byte-aligned, no final
// block), so it is valid wherever it is placed; the compressor of the rest
// starts afresh after each one. Only the CRC-32 of the whole answer is
// computed per answer, which costs a small fraction of compressing it.
//
// Why not klauspost/compress/gzhttp around an uncompressed handler:
// BenchmarkGzipCachedHit (compress_bench_test.go), a cached hit to a client
// that accepts gzip, 2 shared cores, median of 3 runs, time per answer
// (bytes sent):
//
//	result    splice          gzhttp default   gzhttp BestSpeed  no gzip
//	1.4 KB    21 µs (465 B)   44 µs (438 B)    35 µs (448 B)     16 µs
//	100 KB    60 µs (16.8 KB) 1205 µs (17.4 KB) 353 µs (18.4 KB) 121 µs
//
// gzhttp compresses every hit; the splice compresses a cached result once,
// so it costs 1.7-2x less on small hits and 6-20x less on large ones, for
// answers of about the same size.

// formOverhead is what a kept form costs the heap beside its bytes: the
// deflateForm, its interface value and its slot among the entry's forms.
const formOverhead = 96

// deflateFormKey is the key of a result's deflate form in its Forms.
type deflateFormKey struct{}

// deflateForm is a result compressed on its own into a sync-flushed run of
// non-final deflate blocks.
type deflateForm struct{ seg []byte }

// Compression levels: answers are compressed as they are written at the
// fastest level; a form kept with a cache entry is made once, at a level
// that compresses better.
const (
	answerLevel = flate.BestSpeed
	formLevel   = 6
)

// minFormBytes is the smallest result given a kept form: below it, the
// result is compressed with its envelope, which costs about as much as
// splicing a form would.
const minFormBytes = 512

// gzipHeader is the fixed header of a gzip member (RFC 1952): deflate, no
// name, no time, unknown OS.
var gzipHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// compressors pools the deflate writers of one level.
type compressors struct {
	level int
	pool  sync.Pool
}

func (c *compressors) get(dst *bytes.Buffer) *flate.Writer {
	if w, ok := c.pool.Get().(*flate.Writer); ok {
		w.Reset(dst)
		return w
	}
	w, _ := flate.NewWriter(dst, c.level) // the level is valid
	return w
}

func (c *compressors) put(w *flate.Writer) {
	w.Reset(nil)
	c.pool.Put(w)
}

// acceptsGzip reports whether a request's Accept-Encoding allows gzip (or
// any encoding) with a quality above 0.
func acceptsGzip(h http.Header) bool {
	for _, v := range h.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.TrimSpace(name)
			if !strings.EqualFold(name, "gzip") && !strings.EqualFold(name, "x-gzip") && name != "*" {
				continue
			}
			q := 1.0
			for p := range strings.SplitSeq(params, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(k, "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
						q = f
					}
				}
			}
			if q > 0 {
				return true
			}
		}
	}
	return false
}

// form returns the kept deflate form of a result, making and keeping it on
// first use.
func (h *Handler) form(result []byte, forms dispatch.Forms) []byte {
	if f, ok := forms.Derived(deflateFormKey{}).(*deflateForm); ok {
		return f.seg
	}
	var buf bytes.Buffer
	buf.Grow(len(result)/3 + 64)
	w := h.formZ.get(&buf)
	_, _ = w.Write(result) // a bytes.Buffer does not fail
	_ = w.Flush()
	h.formZ.put(w)
	seg := bytes.Clone(buf.Bytes())
	forms.SetDerived(deflateFormKey{}, &deflateForm{seg: seg}, cap(seg)+formOverhead)
	return seg
}

// sendGzip writes the answer assembled in out gzip-encoded (see above).
func (h *Handler) sendGzip(w http.ResponseWriter, status int, out *response) {
	var chunks [][]byte
	cur := new(bytes.Buffer)
	cur.Grow(min(out.len()/4+64, 64<<10))
	cur.Write(gzipHeader[:])
	z := h.answerZ.get(cur)
	crc := uint32(0)
	size := 0
	fresh := func(b []byte) {
		if len(b) == 0 {
			return
		}
		_, _ = z.Write(b)
		crc = crc32.Update(crc, crc32.IEEETable, b)
		size += len(b)
	}
	prev := 0
	for _, p := range out.large {
		fresh(out.buf[prev:p.at])
		prev = p.at
		if p.forms == nil {
			fresh(p.data)
			continue
		}
		seg := h.form(p.data, p.forms)
		_ = z.Flush() // byte-aligned, no final block
		chunks = append(chunks, cur.Bytes(), seg)
		cur = new(bytes.Buffer)
		z.Reset(cur) // nothing after the form may refer back across it
		crc = crc32.Update(crc, crc32.IEEETable, p.data)
		size += len(p.data)
	}
	fresh(out.buf[prev:])
	_ = z.Close()
	h.answerZ.put(z)
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], crc)
	binary.LittleEndian.PutUint32(trailer[4:], uint32(size))
	cur.Write(trailer[:])
	chunks = append(chunks, cur.Bytes())
	total := 0
	for _, c := range chunks {
		total += len(c)
	}
	hdr := w.Header()
	hdr["Content-Type"] = h.values.contentType
	hdr["Content-Encoding"] = h.values.gzip
	hdr.Set("Content-Length", strconv.Itoa(total))
	w.WriteHeader(status)
	for _, c := range chunks {
		if _, err := w.Write(c); err != nil {
			return // the client went away
		}
	}
}
