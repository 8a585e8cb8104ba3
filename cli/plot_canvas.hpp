// One drawing, written as PNG, SVG or PDF by the output's extension
// (cairo), and what every picture of `rankmap plot` shares: a log colour
// scale with its bar, and text.
#pragma once

#include <cairo.h>

#include <cstdint>
#include <string>

namespace rankmap::cli {

class Canvas {
 public:
  // `format`: "png", "svg" or "pdf"; size in pixels (points for SVG, PDF).
  Canvas(const std::string& format, int width, int height);
  ~Canvas();
  Canvas(const Canvas&) = delete;
  Canvas& operator=(const Canvas&) = delete;
  cairo_t* cr() const { return cr_; }
  // The finished file's bytes.
  std::string finish();

  void text(double x, double y, const std::string& s, double size = 11, double align = 0, bool vertical = false);
  void rectangle(double x, double y, double w, double h, double r, double g, double b);

 private:
  std::string format_, bytes_;
  cairo_surface_t* surface_ = nullptr;
  cairo_t* cr_ = nullptr;
};

// Bytes on a log scale from `low` to `high` (both > 0), as a colour of a
// viridis-like ramp, dark (few) to yellow (most).
struct LogScale {
  double low = 1, high = 1;
  void colour(double bytes, double& r, double& g, double& b) const;
  // The colour bar: a vertical ramp at (x, y), labelled in powers of ten.
  void draw_bar(Canvas& canvas, double x, double y, double height, const std::string& title) const;
};

// The output's format from its extension, or Error naming it.
std::string picture_format(const std::string& path);

}  // namespace rankmap::cli
