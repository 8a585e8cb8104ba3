// How many names a site's file may make in all (site_import.hpp,
// kMaxSiteNames): a hostlist of a few bytes can name millions of hosts
// ("n[1-1000][1-1000]"), so the readers expand each list against what is
// left of one budget, before anything is built. Internal to libmap.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rankmap/error.hpp"
#include "rankmap/hostlist.hpp"
#include "rankmap/site_import.hpp"

namespace rankmap::detail {

class NameBudget {
 public:
  std::vector<std::string> expand(std::string_view list, const std::string& source, std::size_t line) {
    if (left_ == 0)
      throw Error(source, line, "more than " + std::to_string(kMaxSiteNames) + " node and switch names in all");
    std::vector<std::string> names = expand_hostlist(list, source, line, left_);
    left_ -= names.size();
    return names;
  }

 private:
  std::size_t left_ = kMaxSiteNames;
};

}  // namespace rankmap::detail
