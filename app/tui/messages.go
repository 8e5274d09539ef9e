package tui

import (
	"slices"
	"time"

	"github.com/rewind-agent/rewind/views"
)

// messageLine is the status bar's transient message and the notices
// /status lists: every feature gets it (featureCommon) and the Controller
// holds it (Controller.msg). UI goroutine only.
type messageLine struct {
	bar   *views.StatusBar
	later func(f func()) // onUIThreadAsync: a message's timer clears it on the UI goroutine
	ttl   time.Duration  // how long a message stays (messageTTL; tests shorten it)
	until time.Time      // when the message shown expires (zero: none is timed)
	seq   int            // bumped by every message; a timer clears only its own
	keep  bool           // the message is news, not progress: a run's end leaves it
	// about is the seq of the message shown for each topic: each goes
	// with what it is about (clearAbout).
	about   [topics]int
	notices []notice // the last maxNotices messages, whole (/status)
}

// msgTopic is something that ends, whose message goes when it ends if it
// is still the one shown.
type msgTopic int

const (
	topicCompaction  msgTopic = iota // "compacting…" (a watcher has no op end to clear it)
	topicOpenWarning                 // a session's opening warning (file rewinds off)
	topicDBBusy                      // "database busy" (db_busy.go)
	topics
)

func newMessageLine(bar *views.StatusBar, later func(f func()), ttl time.Duration) *messageLine {
	return &messageLine{bar: bar, later: later, ttl: ttl}
}

// setMessage shows a transient status-bar message for messageTTL (UI).
func (m *messageLine) setMessage(text string, isErr bool) { m.setMessageFor(text, isErr, m.ttl) }

// setNews is setMessage for news a run's end must not wipe (an answer
// from a watcher): it stays its whole messageTTL, whereas progress
// ("compacting…", a retry) is cleared when the run ends well (UI).
func (m *messageLine) setNews(text string) {
	m.setMessage(text, false)
	m.keep = true
}

// notice is a status-bar message as it was set, kept for /status: the bar
// cuts a long one to its width and clears it after a while.
type notice struct {
	at    time.Time
	text  string
	isErr bool
}

// maxNotices bounds the notices /status lists.
const maxNotices = 8

// addNotice keeps a notice for /status (a repeat of the last one once).
func (m *messageLine) addNotice(text string, isErr bool) {
	if n := len(m.notices); n > 0 && m.notices[n-1].text == text {
		return
	}
	m.notices = append(m.notices, notice{at: time.Now(), text: text, isErr: isErr})
	if len(m.notices) > maxNotices {
		m.notices = m.notices[1:]
	}
}

// setInfoUnlessError shows an info message unless an error is showing,
// which it would hide; either way /status lists it (UI).
func (m *messageLine) setInfoUnlessError(text string) {
	if msg, isErr := m.bar.Message(); isErr && msg != "" {
		m.addNotice(text, false)
		return
	}
	m.setMessage(text, false)
}

// setMessageFor shows a transient status-bar message for exactly ttl: a
// timer clears it then, unless a newer message replaced it (UI). The
// message is also kept, whole, among the notices /status lists.
func (m *messageLine) setMessageFor(text string, isErr bool, ttl time.Duration) {
	m.addNotice(text, isErr)
	m.bar.SetMessage(text, isErr)
	m.keep = false
	m.until = time.Now().Add(ttl)
	m.seq++
	seq := m.seq
	time.AfterFunc(ttl, func() {
		m.later(func() {
			if m.seq == seq {
				m.clear()
			}
		})
	})
}

// setAbout is setMessageFor for a message about t (clearAbout).
func (m *messageLine) setAbout(t msgTopic, text string, isErr bool, ttl time.Duration) {
	m.setMessageFor(text, isErr, ttl)
	m.about[t] = m.seq
}

// showsAbout reports whether the message shown is t's.
func (m *messageLine) showsAbout(t msgTopic) bool { return m.about[t] != 0 && m.seq == m.about[t] }

// clearAbout clears the status bar's message if it is still t's:
// progress that is over, a warning about a session left.
func (m *messageLine) clearAbout(t msgTopic) {
	if m.showsAbout(t) {
		m.clear()
	}
}

// clear clears the message shown.
func (m *messageLine) clear() {
	m.bar.ClearMessage()
	m.until = time.Time{}
}

// clearUnlessNews clears the message a run's end leaves only when it is
// news (setNews).
func (m *messageLine) clearUnlessNews() {
	if !m.keep {
		m.bar.ClearMessage()
	}
}

// timed reports whether a message waits for its expiry (the clock ticks).
func (m *messageLine) timed() bool { return !m.until.IsZero() }

// fresh reports whether the message shown has not expired yet.
func (m *messageLine) fresh() bool { return time.Now().Before(m.until) }

// onTick clears an expired message whose timer has not run yet.
func (m *messageLine) onTick() {
	if m.timed() && !m.fresh() {
		m.clear()
	}
}

// noticeLog is a copy of the last notices, oldest first (/status) (UI).
func (m *messageLine) noticeLog() []notice { return slices.Clone(m.notices) }
