package tui

// initFeatures wires the feature files (time travel, session browser,
// following) into the controller; New calls it once the registries exist.
func (c *Controller) initFeatures() {
	c.initTimeTravel()
	c.initBrowser()
	c.initFollow()
}
