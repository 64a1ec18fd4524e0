package stream

import "context"

// WaitBlock returns nil once the follower's tip is at least num (the
// block exists on the nodes and the follower has read it), ErrClosed when
// the follower has stopped, or ctx's error when ctx ends first. The
// dispatcher's block wait (streams.block_wait) holds a get_block call for a
// block just past the head on it.
func (h *Hub) WaitBlock(ctx context.Context, num uint64) error {
	for {
		h.mu.Lock()
		tip, closed, notify := h.tip, h.closed, h.notify
		h.mu.Unlock()
		switch {
		case tip >= num:
			return nil
		case closed:
			return ErrClosed
		}
		select {
		case <-notify:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
