package tui

// initFeatures wires the feature files (approvals, time travel, session
// browser, clipboard, MCP servers, watching, live runs) into the
// controller; New calls it once the registries exist. The browser and the
// watcher and time travel are allocated first: features built before them
// name them (the pager, time travel's sessionLists and liveCatcher).
func (c *Controller) initFeatures() {
	c.br, c.watch, c.tt = new(browser), new(watcher), new(timeTravel)
	c.reader = &viewReader{db: c.db, stats: &c.pollStats, sizes: defaultWindow, importing: &c.watch.importing}
	if c.opts.window != nil {
		c.reader.sizes = *c.opts.window
	}
	c.initPager()
	c.dbBusy = &dbBusyNotice{c: c.common()}
	c.prompts = &prompter{c: prompterDeps{featureCommon: c.common(), prompterHost: c, stepItems: c.step, soul: &c.opts.Soul, input: c.input, conv: c.conv, pg: c.pg, dbBusy: c.dbBusy}}
	c.initSubagents()
	c.initApprovals()
	c.attach = &attacher{opts: &c.opts, db: c.db, yoloIn: c.ap.yolo.in, plan: &c.plan, sink: c.onWorkerSink, later: c.onUIThreadAsync, remoteAnswered: c.ap.onUIRemoteAnswered}
	c.initTyping()
	c.initTimeTravel()
	c.initTimelineJump()
	c.initBrowser()
	c.initMissingDir()
	c.initSetup()
	c.initInUse()
	c.initInputHistory()
	c.initClipboard()
	c.suspend = newSuspender(c.app)
	c.keys = append(c.keys, c.suspend.binding())
	c.initMCP()
	c.initSessionCommands()
	c.initContextCommands()
	c.initWatcher()
	c.initRuns()
	c.initNotify()
	c.initThinking()
	c.initPlan()
	c.help.c = helpDeps{featureCommon: c.common(), keys: &c.keys, commands: c.commands, disabled: c.disabledBy, input: c.input, sessions: c.sessions, browser: c.br.list}
}
