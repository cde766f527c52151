package tui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// styles is the app's theme, made for the terminal's background (dark until
// the terminal says otherwise).
type styles struct {
	dark                                bool
	Title, Header, Selected, Dim, Label lipgloss.Style
	Error, Warn, OK, Border             lipgloss.Style
	Status                              map[string]lipgloss.Style
	Help                                help.Styles
}

func newStyles(dark bool) styles {
	ld := lipgloss.LightDark(dark)
	pick := func(light, darkc string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(darkc)) }
	accent := pick("#5A3FC0", "#B8A6FF")
	red := pick("#B00020", "#FF6B6B")
	green := pick("#1B7F3B", "#6BD68A")
	amber := pick("#8A5A00", "#FFC857")
	dim := pick("#6B6B6B", "#8C8C8C")
	s := styles{
		dark:     dark,
		Title:    lipgloss.NewStyle().Bold(true).Foreground(accent),
		Header:   lipgloss.NewStyle().Bold(true),
		Selected: lipgloss.NewStyle().Reverse(true),
		Dim:      lipgloss.NewStyle().Foreground(dim),
		Label:    lipgloss.NewStyle().Bold(true),
		Error:    lipgloss.NewStyle().Foreground(red),
		Warn:     lipgloss.NewStyle().Foreground(amber),
		OK:       lipgloss.NewStyle().Foreground(green),
		Border:   lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(accent).Padding(0, 1),
		Help:     help.DefaultStyles(dark),
	}
	s.Status = map[string]lipgloss.Style{
		"scheduled": lipgloss.NewStyle(), "reminded": s.Warn, "sending": s.Warn,
		"delivered": s.OK, "failed": s.Error, "paused": s.Dim,
	}
	return s
}
