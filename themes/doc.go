// Package themes owns rewind's colour palettes: the Theme struct every view
// draws with, the built-in dark, light and high-contrast themes (embedded
// YAML files under builtin/), the chroma style each theme names for code
// highlighting, and loading user themes from $REWIND_HOME/themes/*.yaml or
// *.toml (optionally inheriting from a built-in through `base:`).
//
// Themes are plain values. Nothing here keeps a "current theme": the app
// loads one and broadcasts it to every view with SetTheme.
package themes
