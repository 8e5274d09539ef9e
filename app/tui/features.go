package tui

// initFeatures wires the feature files (time travel, session browser,
// following, MCP servers) into the controller; New calls it once the
// registries exist.
func (c *Controller) initFeatures() {
	c.initApprovals()
	c.initTimeTravel()
	c.initBrowser()
	c.initInputHistory()
	c.initClipboard()
	c.suspend = newSuspender(c.app)
	c.keys = append(c.keys, c.suspend.binding())
	c.initMCP()
	c.initSessionCommands()
	c.initWatcher()
	c.initRuns()
	c.initNotify()
}
