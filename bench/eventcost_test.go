package main

import (
	"math"
	"slices"
	"testing"
)

func TestEventCost(t *testing.T) {
	tests := []struct {
		name          string
		with, without float64
		want          float64
	}{
		{"Free", 1000, 1000, 0},
		{"TenPercent", 900, 1000, 0.10},
		{"Quarter", 750, 1000, 0.25},
		{"FasterWithEvents", 1050, 1000, -0.05},
		{"NothingWithout", 900, 0, 0},
		{"NothingWith", 0, 1000, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := eventCost(tt.with, tt.without); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("eventCost(%v, %v) = %v, want %v", tt.with, tt.without, got, tt.want)
			}
		})
	}
}

func TestRoundOrder(t *testing.T) {
	tests := []struct {
		name     string
		round, n int
		want     []int
	}{
		{"First", 0, 3, []int{0, 1, 2}},
		{"Second", 1, 3, []int{2, 1, 0}},
		{"Third", 2, 3, []int{0, 1, 2}},
		{"One", 1, 1, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := roundOrder(tt.round, tt.n); !slices.Equal(got, tt.want) {
				t.Errorf("roundOrder(%d, %d) = %v, want %v", tt.round, tt.n, got, tt.want)
			}
		})
	}
}

func TestSelectEventCostEndpoints(t *testing.T) {
	names := func(eps []endpoint) []string {
		var out []string
		for _, ep := range eps {
			out = append(out, ep.Name)
		}
		return out
	}
	tests := []struct {
		name string
		only string
		want []string
	}{
		{"All", "", []string{"create invoice", "webhook ingest"}},
		{"OnlyOne", "webhook ingest,list invoices", []string{"webhook ingest"}},
		{"None", "list invoices", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := names(selectEventCostEndpoints(onlyEndpoints(config{Only: tt.only})))
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMedianOf(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"None", nil, 0},
		{"One", []float64{0.2}, 0.2},
		{"OddUnsorted", []float64{0.368, 0.093, 0.121}, 0.121},
		{"EvenAveragesTheMiddle", []float64{0.12, -0.01, 0.30, 0.08}, 0.10},
		{"OutlierCannotDrag", []float64{0.09, 0.10, 0.11, 0.95, 0.08, 0.10}, 0.10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := medianOf(tt.xs); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("medianOf(%v) = %v, want %v", tt.xs, got, tt.want)
			}
		})
	}
}
