"""Canvas: its bulk download read (`read`), the final scores in its gradebook import CSV (`export`) and the feedback pages in the zip its Re-Upload Submissions reads (`feedback`)."""
