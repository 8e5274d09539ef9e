package filecp

import "github.com/rewind-agent/rewind/soul/tools"

// The tracker is what soul/tools calls around file writes and Shell.
var _ tools.FileTracker = (*Tracker)(nil)
