package tui

// Why an action is disabled right now, written once. A slash command
// (Command.DisabledWhen) and a global key (globalBinding.DisabledWhen) name
// the rules that disable them, as lazygit's bindings carry a
// GetDisabledReason: help and the slash menu show the reason dimmed, and
// an action refused by a rule says so in one line that also says what to
// do next (refusal). Feature code asks the same rules (holds, refuse).

// rule is one reason an action can be disabled.
type rule int

const (
	// ruleRunActive holds while a run, a compaction or a session switch is in
	// flight (Controller.run).
	ruleRunActive rule = iota + 1
	// ruleReadOnly holds when this workspace does not write its
	// session: watching, the lease is held elsewhere, or the setup screen.
	ruleReadOnly
	// ruleNoModel holds when no model is configured (the setup screen, or
	// watching without one).
	ruleNoModel
)

// holds reports whether r disables actions now (UI).
func (c *Controller) holds(r rule) bool {
	switch r {
	case ruleRunActive:
		return c.run.op != ""
	case ruleReadOnly:
		return c.readOnly
	case ruleNoModel:
		return c.opts.Client == nil
	}
	return false
}

// firstHolding is the first of rules that holds now (0: none), in the
// order read-only, no model, run active.
func (c *Controller) firstHolding(rules []rule) rule {
	for _, r := range []rule{ruleReadOnly, ruleNoModel, ruleRunActive} {
		for _, want := range rules {
			if want == r && c.holds(r) {
				return r
			}
		}
	}
	return 0
}

// onSetupScreen: no model is configured, and the workspace opened read-only
// under the setup screen; there a read-only session is read-only for want
// of a model, and says so.
func (c *Controller) onSetupScreen() bool { return c.readOnly && c.opts.Setup != "" }

// disabledReason is why an action with rules is disabled now, in a few
// words ("" when it is enabled): help and the slash menu show it.
func (c *Controller) disabledReason(rules []rule) string {
	switch c.firstHolding(rules) {
	case ruleRunActive:
		if c.run.op == "run" {
			return "a run is active"
		}
		return c.run.op + " in progress"
	case ruleReadOnly:
		if c.onSetupScreen() {
			return "no model"
		}
		return "read-only session"
	case ruleNoModel:
		return "no model"
	}
	return ""
}

// disabledBy is disabledReason as the views ask it (a binding's or a
// slash command's DisabledReason); nil when rules is empty.
func (c *Controller) disabledBy(rules []rule) func() string {
	if len(rules) == 0 {
		return nil
	}
	return func() string { return c.disabledReason(rules) }
}

// refusal is the one line an action refused by r shows: what was refused
// (a command's name, "forking"; "" for a prompt), why, and what to do next.
func (c *Controller) refusal(what string, r rule) string {
	var why string
	switch r {
	case ruleRunActive:
		why = c.disabledReason([]rule{r}) + ": wait for it"
		if c.run.cancel != nil {
			why += " or press Esc to stop it"
		}
	case ruleReadOnly:
		why = c.watch.readOnlyWhy()
		if c.onSetupScreen() {
			why = setupRefusal
		}
	case ruleNoModel:
		why = setupRefusal
	}
	if what == "" {
		return why
	}
	return what + " is not available: " + why
}

// refuse says why what cannot run now and returns true when one of rules
// holds (UI).
func (c *Controller) refuse(what string, rules ...rule) bool {
	r := c.firstHolding(rules)
	if r == 0 {
		return false
	}
	c.msg.setMessage(c.refusal(what, r), true)
	return true
}
