// How `record` and `attach` answer the signals that would end callprof, so that every way
// out removes what the recording created (its temporary directory): while a launched
// program runs, the signal is the program's (a terminal's Ctrl-C reaches it directly, a
// SIGTERM sent to callprof is passed on) and callprof stays to write; attached, it ends the
// recording; at any other moment callprof removes its files and dies of the signal.
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace callprof::record {

class RecordSignals {
 public:
  RecordSignals();  // handles SIGINT, SIGQUIT, SIGTERM and SIGHUP until destroyed
  ~RecordSignals();
  RecordSignals(const RecordSignals&) = delete;
  RecordSignals& operator=(const RecordSignals&) = delete;

  void program_running(pid_t pid);  // signals are passed on to it
  void attached_recording();        // signals end the recording (interrupted() turns true)
  void finishing();                 // signals remove the files and end callprof
  static bool interrupted();

 private:
  static constexpr int kSignals[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
  struct sigaction old_[4]{};
};

}  // namespace callprof::record
