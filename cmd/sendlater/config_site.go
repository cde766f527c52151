package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/sendlater/sendlater/web"
)

// SiteConfig is the operator's content of the public pages (site.*). Each
// piece left unset keeps the shipped example (SPEC.md's template
// placeholders), and start-up says which ones are still shown.
type SiteConfig struct {
	// Stats is the home and about pages' statistics strip: example (fixed
	// figures), live (the store's totals, rounded, each hidden below
	// web.SiteStatsMinimum) or off.
	Stats    string `mapstructure:"stats"`
	Headline string `mapstructure:"headline"` // the about page's headline
	About    string `mapstructure:"about"`    // the about page's text
	// Testimonials and Team: unset keeps the examples, [] shows none.
	Testimonials *[]SiteTestimonial `mapstructure:"testimonials"`
	Team         *[]SiteTeamMember  `mapstructure:"team"`
}

// SiteTestimonial is one quote of the home page.
type SiteTestimonial struct {
	Quote string `mapstructure:"quote"`
	Name  string `mapstructure:"name"`
	Role  string `mapstructure:"role"`
}

// SiteTeamMember is one card of the about page.
type SiteTeamMember struct {
	Name string `mapstructure:"name"`
	Role string `mapstructure:"role"`
	Bio  string `mapstructure:"bio"`
}

func siteDefaults() map[string]any {
	return map[string]any{"site.stats": "example", "site.headline": "", "site.about": ""}
}

// validateSite checks site.*: a known stats mode, and every testimonial and
// team member with the fields the pages show.
func (c *Config) validateSite(bad func(key, rule string, got any) error) error {
	s := &c.Site
	s.Stats = strings.ToLower(strings.TrimSpace(s.Stats))
	switch s.Stats {
	case "example", "live", "off":
	default:
		return bad("site.stats", "must be example, live or off", s.Stats)
	}
	if s.Testimonials != nil {
		for i, t := range *s.Testimonials {
			if strings.TrimSpace(t.Quote) == "" || strings.TrimSpace(t.Name) == "" {
				return bad(fmt.Sprintf("site.testimonials[%d]", i), "needs a quote and a name", t.Quote+" / "+t.Name)
			}
		}
	}
	if s.Team != nil {
		for i, m := range *s.Team {
			if strings.TrimSpace(m.Name) == "" {
				return bad(fmt.Sprintf("site.team[%d].name", i), "must not be empty", m.Name)
			}
		}
	}
	return nil
}

// site is what the SPA is told of site.*; nil when everything is the
// examples (the page then carries nothing more).
func (c *Config) site() *web.Site {
	s := c.Site
	if len(c.exampleContent()) == 5 {
		return nil
	}
	out := &web.Site{Headline: s.Headline, About: s.About}
	if s.Stats != "example" {
		out.Stats = s.Stats
	}
	if s.Testimonials != nil {
		ts := make([]web.Testimonial, 0, len(*s.Testimonials))
		for _, t := range *s.Testimonials {
			ts = append(ts, web.Testimonial{Quote: t.Quote, Name: t.Name, Role: t.Role})
		}
		out.Testimonials = &ts
	}
	if s.Team != nil {
		team := make([]web.TeamMember, 0, len(*s.Team))
		for _, m := range *s.Team {
			team = append(team, web.TeamMember{Name: m.Name, Role: m.Role, Bio: m.Bio})
		}
		out.Team = &team
	}
	return out
}

// exampleContent names the pieces of the public pages still at their
// shipped example.
func (c *Config) exampleContent() []string {
	s := c.Site
	var out []string
	if s.Stats == "example" || s.Stats == "" {
		out = append(out, "stats")
	}
	if s.Testimonials == nil {
		out = append(out, "testimonials")
	}
	if s.Team == nil {
		out = append(out, "team")
	}
	if s.Headline == "" {
		out = append(out, "headline")
	}
	if s.About == "" {
		out = append(out, "about text")
	}
	return out
}

// logSite says once at start-up which example content the site still
// shows: on a real install, invented figures and people.
func (a *app) logSite() {
	if ex := a.cfg.exampleContent(); len(ex) > 0 {
		a.log.Info("the site shows example content: " + strings.Join(ex, ", ") +
			" (set site.* to replace them, docs/deploy.md)")
	}
}

// siteCounter is a store that counts what the live strip shows (both
// backends do).
type siteCounter interface {
	SiteCounts(ctx context.Context) (users, messages int, err error)
}

// siteCounts are the store's totals for the live strip, when the store
// can count them; nil: no strip.
func siteCounts(st any) func(ctx context.Context) (web.SiteCounts, error) {
	c, ok := st.(siteCounter)
	if !ok {
		return nil
	}
	return func(ctx context.Context) (web.SiteCounts, error) {
		users, messages, err := c.SiteCounts(ctx)
		return web.SiteCounts{Users: users, Messages: messages}, err
	}
}
