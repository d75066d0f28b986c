package portal

import (
	"fmt"
	"strings"
)

// The dashboard's charts are SVG drawn on the server: no script, no
// library, readable without JavaScript and printable. Each is an image
// with a title and a description for screen readers, and the page gives
// its numbers as a table too (the fallback).

// Geometry of a bar chart, in the SVG's own units; CSS scales the whole
// to the width of its box.
const (
	chartWidth  = 640
	chartHeight = 240
	chartTop    = 24  // room for the largest value's label
	chartBottom = 40  // room for the labels under the bars
	chartLeft   = 8   // margins
	chartGap    = 0.3 // share of a slot left between bars
	// maxValueBars is the most bars a chart writes the values of.
	maxValueBars = 6
)

// chart is a bar chart ready to draw.
type chart struct {
	// ID makes the ids of its title and description unique on the page.
	ID, Title, Desc string
	Width, Height   int
	// Baseline is the y of the bars' foot.
	Baseline int
	Bars     []bar
	// ShowValues writes each bar's value above it: when there are few
	// bars, wide enough for an amount.
	ShowValues bool
}

// bar is one bar: its box, its label under it and its value above it.
type bar struct {
	X, Y, W, H float64
	// LabelX is the middle of the bar, where the texts are anchored.
	LabelX float64
	// Label is written under the bar, and Sub under it (a month's year);
	// Text is the value.
	Label, Sub, Text string
	// ValueY is where the value is written (above the bar).
	ValueY float64
}

// barChart draws s as bars; value formats each value for the labels (an
// amount in s's currency). Bars are scaled to the largest value; a
// negative value (a month with more refunds than payments) draws no bar
// but keeps its label.
func barChart(idPrefix, title string, s series, value func(int64) string) chart {
	c := chart{ID: idPrefix + "-" + strings.ToLower(s.Currency), Title: title, Width: chartWidth, Height: chartHeight,
		Baseline: chartHeight - chartBottom, ShowValues: len(s.Values) <= maxValueBars}
	var max int64
	for _, v := range s.Values {
		max = maxOf(max, v)
	}
	n := len(s.Values)
	if n == 0 {
		return c
	}
	slot := float64(chartWidth-2*chartLeft) / float64(n)
	plot := float64(c.Baseline - chartTop)
	var desc []string
	for i, v := range s.Values {
		label, sub, _ := strings.Cut(s.Labels[i], " ")
		b := bar{W: slot * (1 - chartGap), Label: label, Sub: sub, Text: value(v)}
		if i > 0 && !strings.HasPrefix(label, "Jan") && len(s.Labels) > maxValueBars {
			b.Sub = "" // a month's year is written at the start and at each January
		}
		b.X = chartLeft + float64(i)*slot + slot*chartGap/2
		b.LabelX = b.X + b.W/2
		if max > 0 && v > 0 {
			b.H = plot * float64(v) / float64(max)
		}
		b.Y = float64(c.Baseline) - b.H
		b.ValueY = b.Y - 6
		c.Bars = append(c.Bars, b)
		desc = append(desc, fmt.Sprintf("%s: %s", s.Labels[i], b.Text))
	}
	c.Desc = strings.Join(desc, "; ") + "."
	return c
}

func maxOf(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
