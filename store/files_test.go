package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

func fileTestDB(t *testing.T) (*DB, Session) {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, newDBPath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := db.CreateSession(ctx, NewSession{Title: "files", WorkDir: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	return db, s
}

func blobOf(data []byte) FileBlob {
	sum := sha256.Sum256(data)
	return FileBlob{Hash: hex.EncodeToString(sum[:]), Data: data}
}

func TestFileBlobsDedupAndCompression(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := fileTestDB(t)
	text := blobOf([]byte(strings.Repeat("the same line of source code\n", 2000)))
	bin := blobOf([]byte{0, 1, 2, 3, 255, 254, 0, 0})
	empty := blobOf([]byte{})
	for i := 0; i < 3; i++ {
		if err := db.PutBlobs(ctx, []FileBlob{text, bin, empty, text}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := db.FileBlobStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Count != 3 {
		t.Fatalf("blobs stored %d times, want 3 distinct", st.Count)
	}
	if st.RawBytes != int64(len(text.Data)+len(bin.Data)) {
		t.Fatalf("raw bytes %d", st.RawBytes)
	}
	if st.StoredBytes >= st.RawBytes/4 {
		t.Fatalf("repetitive text not compressed: stored %d of %d", st.StoredBytes, st.RawBytes)
	}
	for _, b := range []FileBlob{text, bin, empty} {
		got, err := db.Blob(ctx, b.Hash)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, b.Data) || got == nil {
			t.Fatalf("blob %s does not round trip", b.Hash[:8])
		}
	}
	if _, err := db.Blob(ctx, strings.Repeat("0", 64)); !errors.Is(err, ErrBlobNotFound) {
		t.Fatalf("missing blob: %v", err)
	}
	if ok, err := db.HasBlob(ctx, bin.Hash); err != nil || !ok {
		t.Fatalf("HasBlob of a stored blob: %v %v", ok, err)
	}
	if ok, err := db.HasBlob(ctx, strings.Repeat("0", 64)); err != nil || ok {
		t.Fatalf("HasBlob of a missing blob: %v %v", ok, err)
	}
}

func TestFileIndexAndEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s := fileTestDB(t)
	a, b := blobOf([]byte("a\n")), blobOf([]byte("b\n"))
	_, err := db.ApplyFileBatch(ctx, FileBatch{WorkDir: "/w", Blobs: []FileBlob{a, b},
		Index: []FileIndexEntry{{Path: "x.txt", Size: 2, MtimeNs: 5, Mode: 0o644, Hash: a.Hash, RecordedNs: 9}, {Path: "y", Size: 2, Hash: b.Hash}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ApplyFileBatch(ctx, FileBatch{WorkDir: "/w", Unindex: []string{"y"}}); err != nil {
		t.Fatal(err)
	}
	idx, err := db.FileIndex(ctx, "/w")
	if err != nil {
		t.Fatal(err)
	}
	if len(idx) != 1 || idx[0] != (FileIndexEntry{Path: "x.txt", Size: 2, MtimeNs: 5, Mode: 0o644, Hash: a.Hash, RecordedNs: 9}) {
		t.Fatalf("index %+v", idx)
	}
	if other, _ := db.FileIndex(ctx, "/other"); len(other) != 0 {
		t.Fatal("index leaks across work dirs")
	}
	// An index entry must point at stored content.
	if _, err := db.ApplyFileBatch(ctx, FileBatch{WorkDir: "/w", Index: []FileIndexEntry{{Path: "z", Hash: strings.Repeat("1", 64)}}}); err == nil {
		t.Fatal("index entry without its blob accepted")
	}

	// Events take the session's last seq and current generation.
	if _, err := db.Checkpoint(ctx, s.ID, false); err != nil {
		t.Fatal(err)
	}
	ver, err := db.SessionVersion(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := db.ApplyFileBatch(ctx, FileBatch{WorkDir: "/w", SessionID: s.ID, Events: []FileChange{
		{Path: "x.txt", Before: FileState{Hash: a.Hash, Mode: 0o644}, Pending: true, Tool: "write"},
		{Path: "new", After: FileState{Hash: b.Hash, Mode: 0o600}, Tool: "Shell"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 2 || ev[0].Seq != ver.MaxSeq || ev[0].Gen != 0 || !ev[0].Pending || ev[1].ID <= ev[0].ID {
		t.Fatalf("events %+v (max seq %d)", ev, ver.MaxSeq)
	}
	pend, err := db.PendingFileEvents(ctx, s.ID)
	if err != nil || len(pend) != 1 || pend[0].ID != ev[0].ID {
		t.Fatalf("pending %+v %v", pend, err)
	}
	if _, err := db.ApplyFileBatch(ctx, FileBatch{WorkDir: "/w", SessionID: s.ID, Settle: []FileSettle{{ID: ev[0].ID, After: FileState{Hash: b.Hash, Mode: 0o644}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ApplyFileBatch(ctx, FileBatch{WorkDir: "/w", SessionID: s.ID, Settle: []FileSettle{{ID: ev[0].ID}}}); err == nil {
		t.Fatal("settling a settled event accepted")
	}
	all, err := db.FileEvents(ctx, s.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Pending || all[0].After.Hash != b.Hash || all[1].Before.Exists() || all[1].After.Mode != 0o600 {
		t.Fatalf("events after settle %+v", all)
	}

	// Position lookups.
	if id, ok, err := db.FileEventIDFromSeq(ctx, s.ID, ver.MaxSeq); err != nil || !ok || id != ev[0].ID {
		t.Fatalf("from seq: %d %v %v", id, ok, err)
	}
	if _, ok, _ := db.FileEventIDFromSeq(ctx, s.ID, ver.MaxSeq+1); ok {
		t.Fatal("event found after the last seq")
	}
	if _, ok, _ := db.FileEventIDAfterGen(ctx, s.ID, 0); ok {
		t.Fatal("event found after the current generation")
	}
	if _, err := db.RevertTo(ctx, s.ID, 0, CauseRevert, ""); err != nil {
		t.Fatal(err)
	}
	ev2, err := db.ApplyFileBatch(ctx, FileBatch{WorkDir: "/w", SessionID: s.ID, Events: []FileChange{{Path: "new", Before: FileState{Hash: b.Hash, Mode: 0o600}, Tool: "rewind"}}})
	if err != nil {
		t.Fatal(err)
	}
	if ev2[0].Gen != 1 {
		t.Fatalf("event gen %d after a revert, want 1", ev2[0].Gen)
	}
	if id, ok, err := db.FileEventIDAfterGen(ctx, s.ID, 0); err != nil || !ok || id != ev2[0].ID {
		t.Fatalf("after gen 0: %d %v %v", id, ok, err)
	}
	if _, err := db.ApplyFileBatch(ctx, FileBatch{WorkDir: "/w", SessionID: "nope", Events: []FileChange{{Path: "p", Tool: "x"}}}); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}
