"""The "Spatial data" page: 2-D histograms, region trees and rectangles."""
